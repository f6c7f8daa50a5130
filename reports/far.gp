# far.gp: median and max ULP error against the far-translation exponent e.
# Usage: gnuplot -c far.gp DATA OUT svg|png "NAME1 NAME2 ..."
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "ULP error after translating by 10^{e}"
set xlabel "e"
set ylabel "ULP error (solid: median, dashed: max; below 1e-3 drawn at 1e-3)"
set logscale y
set format y "10^{%L}"
plot for [i=1:words(names)] data index (i-1) using 1:(column(3) > 0 ? clampu($4) : NaN) with linespoints pt 7 ps 0.4 lw 2 lc rgb col(i) title word(names, i), \
     for [i=1:words(names)] data index (i-1) using 1:(column(3) > 0 ? clampu($5) : NaN) with lines dt 2 lw 1 lc rgb col(i) notitle

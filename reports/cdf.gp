# cdf.gp: cumulative distribution of the ULP error per formulation.
# Usage: gnuplot -c cdf.gp DATA OUT svg|png "NAME1 NAME2 ..."
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "Cumulative distribution of ULP error (main suite)"
set xlabel "ULP error"
set ylabel "fraction of timed cases at or below"
set logscale x
set format x "10^{%L}"
set yrange [0:1.02]
plot for [i=1:words(names)] data index (i-1) using ($1 > 0 ? $1 : NaN):2 with steps lw 2 lc rgb col(i) title word(names, i)

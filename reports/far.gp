# far.gp: median and max ULP error against the far-translation exponent e, one panel per group.
# Usage: gnuplot -c far.gp DATA OUT svg|png "NAME1 NAME2 ..." "COLOUR1 ..." "GROUP1 ..." "GROUPS DRAWN" '"TITLE1" ...'
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# ARG5..ARG8 read here: inside a loaded file ARGn are those of the load.
colours = ARG5
groups = ARG6
present = ARG7
titles = ARG8
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
main_title = "ULP error after translating by 10^{e} (solid: median, dashed: max; below 1e-3 drawn at 1e-3)"
set multiplot layout panels,1
set xlabel "e"
set ylabel "ULP error"
set logscale y
set format y "10^{%L}"
do for [p=1:panels] {
  g = panel_group(p)
  set title main_title."\n{/*0.85 ".gtitle(g)."}"
  plot for [i=1:words(names)] data index (i-1) using 1:(ing(i, g, column(3) > 0 ? clampu($4) : NaN)) with linespoints pt ptype(i) ps 0.5 lw 2 lc rgb col(i) title ttl(i, g), \
       for [i=1:words(names)] data index (i-1) using 1:(ing(i, g, column(3) > 0 ? clampu($5) : NaN)) with lines dt 2 lw 1 lc rgb col(i) notitle
}
unset multiplot

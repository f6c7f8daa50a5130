# cdf.gp: cumulative distribution of the ULP error per formulation, one panel per group.
# Usage: gnuplot -c cdf.gp DATA OUT svg|png "NAME1 NAME2 ..." "COLOUR1 ..." "GROUP1 ..." "GROUPS DRAWN" '"TITLE1" ...'
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
# The x axis starts at zero_at: errors below it (10^{-4} ULP), 0 included, are drawn at the left edge,
# labelled "0"; the decades start at 10^{-3}.
zero_at = 1e-4
main_title = "Cumulative distribution of ULP error (main suite)"
set multiplot layout panels,1
set xlabel "ULP error (0, and any error below 0.0001, drawn at the left edge)"
set ylabel "fraction at or below"
set logscale x
set format x "10^{%L}"
stats data using 1 nooutput prefix "U"
set xrange [zero_at:(U_max > 1 ? 3 * U_max : 10)]
set xtics 1e-3, 1000
set mxtics 3
set xtics add ("0" zero_at)
set yrange [0:1.02]
do for [p=1:panels] {
  g = panel_group(p)
  set title main_title."\n{/*0.85 ".gtitle(g)."}"
  plot for [i=1:words(names)] data index (i-1) using ($1 < zero_at ? zero_at : $1):(ing(i, g, $2)) with steps lw 2 lc rgb col(i) title ttl(i, g)
}
unset multiplot

# audit.gp: distributions of energy error and contact gap from the pairwise response audit.
# Usage: gnuplot -c audit.gp DATA OUT svg|png "NAME1 NAME2 ..." "COLOUR1 ..." "GROUP1 ..." "GROUPS DRAWN" '"TITLE1" ...'
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
panels = 1
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set multiplot layout 1,2 title "Collision response audit (E = 1): cumulative distributions"
set key inside left top font ",8"
set logscale x
set format x "10^{%L}"
set yrange [0:1.02]
set ylabel "fraction of audited hits at or below"
set xlabel "|relative kinetic energy error|"
plot for [i=1:words(names)] data index (i-1) using ($2 > 0 ? $2 : 1e-20):1 with steps lw 2 lc rgb col(i) title tt(i)
set xlabel "|contact gap| / R"
plot for [i=1:words(names)] data index (i-1) using ($3 > 0 ? $3 : 1e-20):1 with steps lw 2 lc rgb col(i) notitle
unset multiplot

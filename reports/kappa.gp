# kappa.gp: ULP error against the condition number kappa of t*, with the line error = kappa; one panel per group.
# Usage: gnuplot -c kappa.gp DATA OUT svg|png "NAME1 NAME2 ..." "COLOUR1 ..." "GROUP1 ..." "GROUPS DRAWN" '"TITLE1" ...'
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
main_title = "Error against conditioning (line: error = {/Symbol k}, i.e. relative error = {/Symbol k} u)"
set multiplot layout panels,1
set xlabel "condition number {/Symbol k} of t*"
set ylabel "ULP error (below 1e-3 drawn at 1e-3)"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
do for [p=1:panels] {
  g = panel_group(p)
  set title main_title."\n{/*0.85 ".gtitle(g)."}"
  plot for [i=1:words(names)] data index (i-1) using 1:(ing(i, g, clampu($2))) with points pt 7 ps 0.3 lc rgb col(i) title ttl(i, g), \
       x with lines lw 2 lc rgb "#444444" dt 3 title "error = {/Symbol k}"
}
unset multiplot

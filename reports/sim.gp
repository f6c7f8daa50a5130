# sim.gp: running maximum of the energy error against events in the many-ball simulation, one panel per group.
# Usage: gnuplot -c sim.gp DATA OUT svg|png "KERNEL1 KERNEL2 ..." "COLOUR1 ..." "GROUP1 ..." "GROUPS DRAWN" '"TITLE1" ...'
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
# The running maximum of |error| (column 3) separates kernels whose raw errors cross each other.
main_title = "Energy drift in the many-ball simulation: running maximum of |energy error|"
set multiplot layout panels,1
set xlabel "events"
set ylabel "max |kinetic energy error| / initial so far"
set logscale y
set format y "10^{%L}"
do for [p=1:panels] {
  g = panel_group(p)
  set title main_title."\n{/*0.85 ".gtitle(g)."}"
  plot for [i=1:words(names)] data index (i-1) using 1:(ing(i, g, $3 > 1e-18 ? $3 : 1e-18)) with linespoints pt ptype(i) pi 5 ps 0.6 lw 2 lc rgb col(i) title ttl(i, g)
}
unset multiplot

# sim.gp: energy error against events in the many-ball simulation, one line per kernel.
# Usage: gnuplot -c sim.gp DATA OUT svg|png "KERNEL1 KERNEL2 ..."
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "Energy drift in the many-ball simulation"
set xlabel "events"
set ylabel "|total kinetic energy error| / initial (0 drawn at 1e-18)"
set logscale y
set format y "10^{%L}"
plot for [i=1:words(names)] data index (i-1) using 1:($2 > 1e-18 ? $2 : 1e-18) with lines lw 2 lc rgb col(i) title word(names, i)

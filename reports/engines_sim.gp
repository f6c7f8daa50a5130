# engines_sim.gp: the relative kinetic energy error against events of each engine in its scenes
# (the report's section "Engines in a simulation"), one line per engine and scene.
# Usage: gnuplot -c engines_sim.gp DATA OUT svg|png "ENGINE1 ..." "COLOUR1 ..." "" "" '"TITLE1" ...'
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
colours = ARG5
titles = ARG8
panels = 1
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "Engines in a simulation: kinetic energy error against events"
set xlabel "events"
set ylabel "kinetic energy error / initial"
set format y "%.1e"
# The scenes of one engine share its colour; the point type tells them apart.
plot for [i=1:words(names)] data index (i-1) using 1:2 with linespoints pt ptype(i) ps 0.6 lw 2 lc rgb col(i) title tt(i)

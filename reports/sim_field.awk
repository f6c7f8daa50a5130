# sim_field.awk: one figure of `toibench simulate`'s summary table, found by its column's name in the
# header line, not by position (columns were added before events/s, and a position read the wrong one).
# Usage: awk -v kernel=NAME -v field=COLUMN -f reports/sim_field.awk FILE   (COLUMN as the header
# writes it: events/s, queries, drift/1e6, ...). Prints nothing when the kernel or the column is absent.
$1 == "kernel" {
  col = 0
  for (i = 1; i <= NF; i++) if ($i == field) col = i
  next
}
/^#/ { next }
col && $1 == kernel { print $col }

/* tempfile.h: unnamed temporary files of TMPDIR for data that must not stay in memory (private). */
#ifndef TOI_TEMPFILE_H
#define TOI_TEMPFILE_H

#include <stdio.h>

/* A new file of TMPDIR (/tmp when unset or unusable) open for reading and writing, mode
   0600 and without a name (O_TMPFILE, or a name removed at once), so that it
   vanishes with the process however it ends; NULL with errno set. A caller
   that must leave nothing behind even between the creation and the removal
   of the name holds its signals around the call. */
FILE *toi_temp_file(void);

#endif

/* clock.h: the monotonic clock every deadline and timing of the library reads. */
#ifndef TOI_CLOCK_H
#define TOI_CLOCK_H

/// Monotonic clock in seconds (CLOCK_MONOTONIC): for deadlines and durations, never a date.
double toi_clock_now(void);

#endif

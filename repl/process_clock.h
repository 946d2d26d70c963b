// The parts of an `ein --timings` process outside its cells: start (exec to the first cell), the
// gaps between cells, and exit (the last cell's end to the process's last destructor), so that
// the rows printed add up to the process's wall time.
#pragma once

namespace ein::proc {

// Milliseconds from the last mark (at first: exec) to now; now becomes the mark. Time before
// ein's first static initializer (the dynamic loader, relocations, the libraries' initializers)
// is the main thread's CPU time then: work on one thread that does not block, so its CPU time is
// its wall time.
double lap_ms();

// Marks now (a cell just ended) and arms the exit report: the executable's last static
// destructor prints "timing: exit <ms> ms" to stderr, the time since the last mark.
void mark_cell_end();

}  // namespace ein::proc

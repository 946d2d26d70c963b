// How front ends echo a cell's value (the REPL, `jupyter console`, Jupyter's text/plain). Arrays
// of rank >= 2 show one row per line with the items right-aligned to a common width; a blank
// line separates the 2-D slices of higher ranks. Above 1000 items, or when a row would not fit
// `width` columns, axes are summarised with `...` and a first line gives the type and shape
// (`[f32; 100, 100]`). Anything else echoes as print() writes it (format_value, SPEC §8).
#pragma once
#include <string>

#include "engine/value/value.h"

namespace ein {

std::string format_echo(const Value& v, int width = 80);

}  // namespace ein

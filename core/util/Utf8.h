// Names in a .pte are flatbuffer strings: any bytes. Everything ptescope
// shows (text, JSON, the GUI) is UTF-8, so a name that is not valid UTF-8 is
// shown in one printable form everywhere: each byte that is not part of a
// valid UTF-8 sequence becomes the four characters \xNN (upper-case hex), as
// `flatc --json` (and `ptescope-cli dump`) print such bytes. Valid strings are
// shown unchanged.
#pragma once

#include <string>
#include <string_view>

namespace ptescope {

// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF).
bool isValidUtf8(std::string_view text);

// `text` with every byte outside a valid UTF-8 sequence written as \xNN.
// Escaping a whole text equals escaping each of its parts, since a valid
// sequence never starts with a continuation byte.
std::string printableUtf8(std::string_view text);

// printableUtf8(text) that stays on one line and prints nothing invisible:
// also each control character (U+0000-U+001F, U+007F) becomes \xNN, and the
// C1 controls, line/paragraph separators (U+0080-U+009F, U+2028, U+2029) and
// the bidirectional formatting characters (U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069) become \uNNNN. Every message that may quote a name from a file (errors,
// warnings, notes: one line each) is printed through it.
std::string printableLine(std::string_view text);

}  // namespace ptescope

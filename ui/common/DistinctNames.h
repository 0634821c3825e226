// Names that read alike however they are elided: named data keys
// "forward_layer0_mlp_so_blob" .. "forward_layer9_mlp_so_blob" differ only in
// their middle, so cutting their middle, start or end leaves them alike. Each
// keeps instead the part that tells it from the names nearest to it, with
// as much around it as fits: "…layer3_mlp…".
#pragma once

#include <QFontMetrics>
#include <QString>

#include <map>
#include <utility>
#include <vector>

namespace ptescope::ui {

// Per name, the range [first, last) that holds the first character in which
// it differs from the name sharing most of its start and the last one in
// which it differs from the name sharing most of its end.
std::map<QString, std::pair<int, int>> distinguishingParts(std::vector<QString> names);

// `name` as drawn in `width` pixels: whole when it fits, else its
// distinguishing part `part` with as much of its surroundings as fits and
// "…" where it is cut.
QString elideAround(const QString& name, std::pair<int, int> part, const QFontMetrics& metrics, int width);

}  // namespace ptescope::ui

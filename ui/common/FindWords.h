#pragma once
// The one matching rule of Find (the graph) and the Values filter: a query is
// words; a thing matches when every word, case-insensitively, is somewhere in
// one of its texts. Matches rank by how well they match (matchRank).
#include <string>
#include <string_view>
#include <vector>

namespace ptescope::ui {

// The query's words, lower case, split on white space.
std::vector<std::string> findWords(std::string_view query);

// Every word is a part of one of the texts.
bool containsAllWords(const std::vector<std::string>& words, const std::vector<const std::string*>& texts);

// How well words match texts that contain them all: 0 when they are the whole
// of one text (Find "layer 7" is the group "layer 7"), 1 when each is a whole
// word of one ("layers" in "layers.0.attention"), 2 when one is only a part
// of a word ("layer 7" in "layers.7.attention"). Lower ranks come first.
int matchRank(const std::vector<std::string>& words, const std::vector<const std::string*>& texts);

}  // namespace ptescope::ui

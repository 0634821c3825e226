#include "ui/common/FindWords.h"

#include <algorithm>
#include <cctype>

namespace ptescope::ui {

namespace {

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::vector<std::string> findWords(std::string_view query) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < query.size()) {
    while (at < query.size() && std::isspace(static_cast<unsigned char>(query[at]))) ++at;
    size_t end = at;
    while (end < query.size() && !std::isspace(static_cast<unsigned char>(query[end]))) ++end;
    if (end > at) words.push_back(lowered(std::string(query.substr(at, end - at))));
    at = end;
  }
  return words;
}

bool containsAllWords(const std::vector<std::string>& words, const std::vector<const std::string*>& texts) {
  std::vector<std::string> low;
  low.reserve(texts.size());
  for (const std::string* text : texts) low.push_back(lowered(*text));
  return std::all_of(words.begin(), words.end(), [&](const std::string& word) {
    return std::any_of(low.begin(), low.end(), [&](const std::string& t) { return t.find(word) != std::string::npos; });
  });
}

int matchRank(const std::vector<std::string>& words, const std::vector<const std::string*>& texts) {
  std::string query;
  for (const auto& word : words) query += (query.empty() ? "" : " ") + word;
  std::vector<std::string> low;
  low.reserve(texts.size());
  for (const std::string* text : texts) low.push_back(lowered(*text));
  if (std::find(low.begin(), low.end(), query) != low.end()) return 0;
  for (const auto& word : words) {
    bool whole = false;
    for (const std::string& text : low) {
      for (size_t at = text.find(word); at != std::string::npos && !whole; at = text.find(word, at + 1)) {
        const size_t end = at + word.size();
        whole = (at == 0 || !isWordChar(text[at - 1]) || !isWordChar(word.front())) &&
                (end == text.size() || !isWordChar(text[end]) || !isWordChar(word.back()));
      }
      if (whole) break;
    }
    if (!whole) return 2;
  }
  return 1;
}

}  // namespace ptescope::ui

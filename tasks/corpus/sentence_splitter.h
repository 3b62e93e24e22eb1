// An English sentence splitter for paragraphs of running text (books,
// Wikipedia, the Bible), the step between a corpus's paragraphs and the
// one-sentence-per-line format of create_pretraining_data.py.
//
// Rules, each covered by sentence_splitter_test.cc:
//   1. A sentence ends after a run of terminators (. ! ? and U+2026 "…",
//      mixed, e.g. "?!" or "..."), plus any closing quotes and brackets
//      right after it (" ' ” ’ » ) ] }), which stay with the sentence,
//      when ASCII whitespace follows and the next non-space character is
//      an uppercase letter (Unicode Lu or Lt), an ASCII digit, or an
//      opening quote or bracket (" ' “ ‘ « ( [).
//      So nothing splits inside "3.14", "www.example.com" or "end.Next"
//      (no whitespace), or before a lowercase word ("Wait... what?",
//      "\"Why?\" he asked."), and an ellipsis splits like a full stop
//      ("He paused... Then he left." is two sentences).
//   2. A single "." (no other terminator, no closer) does not end a
//      sentence after:
//      a. a title or a Latin abbreviation (kNeverFinal in the .cc): Mr,
//         Mrs, Ms, Dr, St, Jr, Sr, Prof, Rev, Gen, Col, Capt, Lt, Gov,
//         Sen, Hon, Mt, vs, v, etc, cf, viz, al, approx, ... (exact case,
//         or all capitals: "MR."), so a sentence that really ends in
//         "etc." runs on into the next one;
//      b. a single uppercase letter: initials ("J. R. R. Tolkien"); a
//         sentence ending in "I." or "Plan B." runs on as well;
//      c. letters joined by periods: "e.g.", "i.e.", "U.S.", "U.S.A.",
//         "a.m." (a sentence ending in "U.S." runs on);
//      d. an abbreviation used before numbers (kBeforeNumber in the .cc:
//         No, Vol, pp, p, Fig, Art, Sec, Ch, Jan ... Dec, ca, c, ...) when
//         the next character is a digit ("No. 5", "Jan. 5").
//      Opening quotes and brackets in front of the word are ignored
//      ("(Mr. Smith").
//   3. Sentences come out trimmed, with every run of ASCII whitespace
//      (including line breaks of a joined paragraph) as one space. Empty
//      sentences are never produced.
// Bytes that are not well-formed UTF-8 pass through unchanged and never
// count as uppercase letters.
#ifndef BERTLAB_TASKS_CORPUS_SENTENCE_SPLITTER_H_
#define BERTLAB_TASKS_CORPUS_SENTENCE_SPLITTER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace bertlab {

// Appends the sentences of `paragraph` to *sentences.
void SplitSentences(absl::string_view paragraph,
                    std::vector<std::string>* sentences);

// Returns the sentences of `paragraph`.
std::vector<std::string> SplitSentences(absl::string_view paragraph);

// Returns `text` trimmed, with each run of ASCII whitespace as one space.
std::string CollapseWhitespace(absl::string_view text);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_SENTENCE_SPLITTER_H_

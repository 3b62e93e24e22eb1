// Small building blocks for the SVG charts of report.html (report_html.h):
// a linear or log10 scale from data to pixels, readable tick values, axes
// with ticks, labels and a title, and the series palette. ToSvg
// (report_writers.h) predates these and keeps its own drawing; the charts
// here are the pre-training curves and the spread of restarts.
//
//   const Scale x = Scale::Linear(PaddedRange(steps, 0.02, false), 60, 520);
//   const Scale y = Scale::Log(PaddedRange(perplexities, 0.05, true), 300, 20);
//   AppendXAxis(frame, x, x.Ticks(5), "step", out);
//
// Every number written into the SVG goes through SvgNumber (two decimals), so
// the same data give byte-identical markup.
#ifndef BERTLAB_REPORTS_SVG_CHART_H_
#define BERTLAB_REPORTS_SVG_CHART_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace bertlab {
namespace reports {
namespace svg {

struct Range {
  double min = 0.0;
  double max = 1.0;
};

// The smallest range holding `values` (finite ones; log: positive ones),
// widened by `fraction` of its span on each side (log: of its span in
// decades). A single value or no value gives a non-empty range around it
// (linear: +-1; log: a factor of 2; nothing: [0, 1] or [1, 10]).
Range PaddedRange(const std::vector<double>& values, double fraction, bool log);

// Maps a data range onto a pixel range (which may run backwards, as y does).
class Scale {
 public:
  static Scale Linear(Range domain, double pixel_from, double pixel_to);
  // domain.min must be > 0.
  static Scale Log(Range domain, double pixel_from, double pixel_to);

  double operator()(double value) const;
  bool log() const { return log_; }
  const Range& domain() const { return domain_; }
  // Tick values inside the domain: linear, multiples of 1, 2 or 5 x 10^k,
  // about `target` of them; log, the powers of ten inside it (with 2 and 5
  // times them when fewer than three powers fit).
  std::vector<double> Ticks(int target) const;

 private:
  Scale(Range domain, double pixel_from, double pixel_to, bool log);
  double Transform(double value) const;

  Range domain_;
  double pixel_from_;
  double pixel_to_;
  bool log_;
};

// The plot area of a chart, in pixels.
struct Frame {
  double left = 0.0;
  double top = 0.0;
  double right = 0.0;
  double bottom = 0.0;
};

// A coordinate or length: two decimals, never "-0.00".
std::string SvgNumber(double value);
// A tick label: up to three significant digits ("0.1", "250", "1.2e+04").
std::string TickLabel(double value);

// The axis line along the frame's bottom (left), a tick and label per value,
// and `title` under (beside) it. `title` is escaped here.
void AppendXAxis(const Frame& frame, const Scale& scale,
                 const std::vector<double>& ticks, absl::string_view title,
                 std::string& out);
void AppendYAxis(const Frame& frame, const Scale& scale,
                 const std::vector<double>& ticks, absl::string_view title,
                 std::string& out);

// The colour of series `index` (cycles through eight, as ToSvg's).
const char* SeriesColor(int index);

}  // namespace svg
}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_SVG_CHART_H_

#include "reports/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/check.h"
#include "reports/report_writers.h"

namespace bertlab {
namespace reports {
namespace svg {
namespace {

constexpr double kTickLength = 4.0;

// A tick step of 1, 2 or 5 x 10^k near `raw` (d3's rule): `multiple` x
// 10^`exponent`, kept apart so tick values are computed exactly.
struct Step {
  int multiple;
  int exponent;
};

Step NiceStep(double raw) {
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  const double error = raw / std::pow(10.0, exponent);
  if (error >= std::sqrt(50.0)) return {1, exponent + 1};
  if (error >= std::sqrt(10.0)) return {5, exponent};
  if (error >= std::sqrt(2.0)) return {2, exponent};
  return {1, exponent};
}

// i x multiple x 10^exponent, correctly rounded (0.6, not 0.6000000000000001).
double TickValue(int64_t i, const Step& step) {
  const double units = static_cast<double>(i * step.multiple);
  return step.exponent >= 0 ? units * std::pow(10.0, step.exponent)
                            : units / std::pow(10.0, -step.exponent);
}

}  // namespace

Range PaddedRange(const std::vector<double>& values, double fraction,
                  bool log) {
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (const double value : values) {
    if (!std::isfinite(value) || (log && value <= 0)) continue;
    const double v = log ? std::log10(value) : value;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  if (low > high) {
    low = 0.0;
    high = 1.0;
  } else if (high - low < 1e-12) {
    const double half_width = log ? std::log10(2.0) : 1.0;
    low -= half_width;
    high += half_width;
  } else {
    const double pad = fraction * (high - low);
    low -= pad;
    high += pad;
  }
  if (log) return {std::pow(10.0, low), std::pow(10.0, high)};
  return {low, high};
}

Scale::Scale(Range domain, double pixel_from, double pixel_to, bool log)
    : domain_(domain), pixel_from_(pixel_from), pixel_to_(pixel_to), log_(log) {
  CHECK_LT(domain.min, domain.max);
  if (log) CHECK_GT(domain.min, 0.0);
}

Scale Scale::Linear(Range domain, double pixel_from, double pixel_to) {
  return Scale(domain, pixel_from, pixel_to, false);
}

Scale Scale::Log(Range domain, double pixel_from, double pixel_to) {
  return Scale(domain, pixel_from, pixel_to, true);
}

double Scale::Transform(double value) const {
  return log_ ? std::log10(value) : value;
}

double Scale::operator()(double value) const {
  const double low = Transform(domain_.min);
  const double high = Transform(domain_.max);
  return pixel_from_ +
         (Transform(value) - low) / (high - low) * (pixel_to_ - pixel_from_);
}

std::vector<double> Scale::Ticks(int target) const {
  CHECK_GT(target, 0);
  std::vector<double> ticks;
  if (log_) {
    const int first = static_cast<int>(std::ceil(std::log10(domain_.min)));
    const int last = static_cast<int>(std::floor(std::log10(domain_.max)));
    const bool with_multiples = last - first + 1 < 3;
    for (int power = first - 1; power <= last; ++power) {
      for (const int multiple : {1, 2, 5}) {
        if (multiple != 1 && !with_multiples) continue;
        const double value = TickValue(1, Step{multiple, power});
        if (value >= domain_.min && value <= domain_.max) {
          ticks.push_back(value);
        }
      }
    }
    if (ticks.size() >= 2) return ticks;
    ticks.clear();
  }
  const Step step = NiceStep((domain_.max - domain_.min) / target);
  const double size = TickValue(1, step);
  for (int64_t i = static_cast<int64_t>(std::ceil(domain_.min / size - 1e-9));
       TickValue(i, step) <= domain_.max + 1e-9 * size; ++i) {
    ticks.push_back(i == 0 ? 0.0 : TickValue(i, step));
  }
  return ticks;
}

std::string SvgNumber(double value) {
  std::string text = absl::StrFormat("%.2f", value);
  if (text == "-0.00") text = "0.00";
  return text;
}

std::string TickLabel(double value) {
  if (std::abs(value) < 1e5 && std::abs(value - std::round(value)) < 1e-9) {
    return absl::StrFormat("%.0f", std::round(value));
  }
  return absl::StrFormat("%.3g", value);
}

void AppendXAxis(const Frame& frame, const Scale& scale,
                 const std::vector<double>& ticks, absl::string_view title,
                 std::string& out) {
  absl::StrAppend(&out, "<g class=\"axis x\">\n<line x1=\"",
                  SvgNumber(frame.left), "\" y1=\"", SvgNumber(frame.bottom),
                  "\" x2=\"", SvgNumber(frame.right), "\" y2=\"",
                  SvgNumber(frame.bottom), "\" stroke=\"black\"/>\n");
  for (const double tick : ticks) {
    const std::string x = SvgNumber(scale(tick));
    absl::StrAppend(&out, "<line x1=\"", x, "\" y1=\"", SvgNumber(frame.bottom),
                    "\" x2=\"", x, "\" y2=\"",
                    SvgNumber(frame.bottom + kTickLength),
                    "\" stroke=\"black\"/>\n<text x=\"", x, "\" y=\"",
                    SvgNumber(frame.bottom + 16), "\" text-anchor=\"middle\">",
                    EscapeXml(TickLabel(tick)), "</text>\n");
  }
  absl::StrAppend(&out, "<text x=\"", SvgNumber((frame.left + frame.right) / 2),
                  "\" y=\"", SvgNumber(frame.bottom + 32),
                  "\" text-anchor=\"middle\">", EscapeXml(title),
                  "</text>\n</g>\n");
}

void AppendYAxis(const Frame& frame, const Scale& scale,
                 const std::vector<double>& ticks, absl::string_view title,
                 std::string& out) {
  absl::StrAppend(&out, "<g class=\"axis y\">\n<line x1=\"",
                  SvgNumber(frame.left), "\" y1=\"", SvgNumber(frame.top),
                  "\" x2=\"", SvgNumber(frame.left), "\" y2=\"",
                  SvgNumber(frame.bottom), "\" stroke=\"black\"/>\n");
  for (const double tick : ticks) {
    const std::string y = SvgNumber(scale(tick));
    absl::StrAppend(&out, "<line x1=\"", SvgNumber(frame.left - kTickLength),
                    "\" y1=\"", y, "\" x2=\"", SvgNumber(frame.left),
                    "\" y2=\"", y, "\" stroke=\"black\"/>\n<text x=\"",
                    SvgNumber(frame.left - 6), "\" y=\"",
                    SvgNumber(scale(tick) + 4), "\" text-anchor=\"end\">",
                    EscapeXml(TickLabel(tick)), "</text>\n");
  }
  const double middle = (frame.top + frame.bottom) / 2;
  absl::StrAppend(&out, "<text transform=\"translate(",
                  SvgNumber(frame.left - 44), ",", SvgNumber(middle),
                  ") rotate(-90)\" text-anchor=\"middle\">", EscapeXml(title),
                  "</text>\n</g>\n");
}

const char* SeriesColor(int index) {
  static const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                        "#9467bd", "#ff7f0e", "#8c564b",
                                        "#e377c2", "#17becf"};
  constexpr int kNumColors = sizeof(kColors) / sizeof(kColors[0]);
  CHECK_GE(index, 0);
  return kColors[index % kNumColors];
}

}  // namespace svg
}  // namespace reports
}  // namespace bertlab

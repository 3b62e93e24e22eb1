#include "reports/svg_chart.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace svg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PaddedRangeTest, PadsAndWidensDegenerateRanges) {
  const Range linear = PaddedRange({10, 20, 15}, 0.1, false);
  EXPECT_DOUBLE_EQ(linear.min, 9);
  EXPECT_DOUBLE_EQ(linear.max, 21);
  const Range log = PaddedRange({10, 1000, -1, 0}, 0.5, true);
  EXPECT_DOUBLE_EQ(log.min, 1);
  EXPECT_DOUBLE_EQ(log.max, 10000);
  const Range single = PaddedRange({5}, 0.1, false);
  EXPECT_DOUBLE_EQ(single.min, 4);
  EXPECT_DOUBLE_EQ(single.max, 6);
  const Range single_log = PaddedRange({5}, 0.1, true);
  EXPECT_DOUBLE_EQ(single_log.min, 2.5);
  EXPECT_DOUBLE_EQ(single_log.max, 10);
  const Range none = PaddedRange({}, 0.1, false);
  EXPECT_DOUBLE_EQ(none.min, 0);
  EXPECT_DOUBLE_EQ(none.max, 1);
}

TEST(ScaleTest, MapsLinearlyAndInDecades) {
  const Scale x = Scale::Linear({0, 100}, 50, 250);
  EXPECT_DOUBLE_EQ(x(0), 50);
  EXPECT_DOUBLE_EQ(x(25), 100);
  const Scale y = Scale::Log({1, 1000}, 300, 0);  // up the page
  EXPECT_DOUBLE_EQ(y(1), 300);
  EXPECT_DOUBLE_EQ(y(10), 200);
  EXPECT_DOUBLE_EQ(y(1000), 0);
}

TEST(ScaleTest, Ticks) {
  EXPECT_THAT(Scale::Linear({0, 1000}, 0, 1).Ticks(5),
              ElementsAre(0, 200, 400, 600, 800, 1000));
  EXPECT_THAT(Scale::Linear({-0.3, 0.7}, 0, 1).Ticks(4),
              ElementsAre(-0.2, 0, 0.2, 0.4, 0.6));
  EXPECT_THAT(Scale::Log({3, 20000}, 0, 1).Ticks(5),
              ElementsAre(10, 100, 1000, 10000));
  EXPECT_THAT(Scale::Log({3, 120}, 0, 1).Ticks(5),
              ElementsAre(5, 10, 20, 50, 100));
  // Inside one decade without 2 or 5 times a power: linear ticks.
  EXPECT_THAT(Scale::Log({6, 9}, 0, 1).Ticks(3), ElementsAre(6, 7, 8, 9));
}

TEST(FormatTest, NumbersAndLabels) {
  EXPECT_EQ(SvgNumber(-0.001), "0.00");
  EXPECT_EQ(SvgNumber(12.345), "12.35");
  EXPECT_EQ(TickLabel(250), "250");
  EXPECT_EQ(TickLabel(10000), "10000");
  EXPECT_EQ(TickLabel(0.2), "0.2");
  EXPECT_EQ(TickLabel(2e-5), "2e-05");
  EXPECT_EQ(TickLabel(1.5e6), "1.5e+06");
}

TEST(AxisTest, EscapesTheTitleAndDrawsATickPerValue) {
  std::string out;
  const Frame frame{10, 10, 110, 110};
  AppendXAxis(frame, Scale::Linear({0, 1}, 10, 110), {0, 0.5, 1}, "a < b", out);
  EXPECT_THAT(out, HasSubstr(">a &lt; b</text>"));
  EXPECT_THAT(out, HasSubstr("<text x=\"60.00\" y=\"126.00\" "
                             "text-anchor=\"middle\">0.5</text>"));
  std::string y_out;
  AppendYAxis(frame, Scale::Log({1, 100}, 110, 10), {1, 10, 100}, "ppl", y_out);
  EXPECT_THAT(y_out, HasSubstr("text-anchor=\"end\">10</text>"));
  EXPECT_EQ(SeriesColor(0), std::string("#1f77b4"));
  EXPECT_EQ(SeriesColor(8), std::string("#1f77b4"));
}

}  // namespace
}  // namespace svg
}  // namespace reports
}  // namespace bertlab

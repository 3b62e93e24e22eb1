// Small-sample statistics for reports: the median of restarts, Student's t
// distribution (CDF and quantile, any df > 0) and Welch's two-sample
// difference of means with its confidence interval.
//
// Student's t CDF through the regularized incomplete beta function:
//   P(T <= t) = 1 - I_x(df/2, 1/2) / 2   for t >= 0,  x = df / (df + t^2),
// with I_x(a, b) evaluated by its continued fraction (modified Lentz), using
// I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly
// (x > (a + 1) / (a + b + 2)). The quantile inverts the upper tail by
// bisection, so it is exact to double precision for every df > 0.
//
// Welch (1947), Satterthwaite (1946): for samples A, B with sample variances
// s_A^2, s_B^2 (n - 1) and sizes n_A, n_B,
//   d = mean(A) - mean(B),  se^2 = s_A^2 / n_A + s_B^2 / n_B,
//   df = se^4 / ((s_A^2 / n_A)^2 / (n_A - 1) + (s_B^2 / n_B)^2 / (n_B - 1)),
//   interval = d -/+ t_{(1 + confidence) / 2, df} * se.
// Mean and SampleStd are run_records.h's.
#ifndef BERTLAB_REPORTS_STATISTICS_H_
#define BERTLAB_REPORTS_STATISTICS_H_

#include <vector>

namespace bertlab {
namespace reports {

// The middle value (the mean of the two middle values for an even count);
// `values` must not be empty.
double Median(std::vector<double> values);

// I_x(a, b) for a, b > 0 and x in [0, 1].
double RegularizedIncompleteBeta(double a, double b, double x);

// P(T <= t) for Student's t with `degrees_of_freedom` > 0.
double StudentTCdf(double t, double degrees_of_freedom);

// The t with P(T <= t) = probability, for probability in (0, 1) and
// `degrees_of_freedom` > 0: StudentTQuantile(0.975, 4) = 2.776...
double StudentTQuantile(double probability, double degrees_of_freedom);

struct WelchInterval {
  double difference = 0.0;  // mean(a) - mean(b)
  double standard_error = 0.0;
  // Welch-Satterthwaite; n_a + n_b - 2 when both samples have zero
  // variance (the interval is then the point `difference`).
  double degrees_of_freedom = 0.0;
  double confidence = 0.0;  // two-sided, e.g. 0.95
  double lower = 0.0;
  double upper = 0.0;
};

// Welch's interval for mean(a) - mean(b); each sample needs at least two
// values and `confidence` lies in (0, 1).
WelchInterval WelchDifference(const std::vector<double>& a,
                              const std::vector<double>& b, double confidence);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_STATISTICS_H_

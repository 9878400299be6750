/* stats.h - summary statistics of TSC tick samples (order statistics, sample mean and standard deviation). */
#ifndef QB_KERNEL_STATS_H
#define QB_KERNEL_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
	uint64_t n;      /* number of samples */
	uint64_t min;    /* smallest sample */
	uint64_t max;    /* largest sample */
	double q1, q3;   /* 25th and 75th percentiles: linear between order statistics (numpy's default) */
	double median;   /* middle sample; mean of the two middle ones for even n */
	double mean;     /* arithmetic mean */
	double stddev;   /* sample standard deviation (divisor n - 1); 0 when n < 2 (stats_rec: null) */
	double cv;       /* coefficient of variation stddev / mean; 0 when n < 2 or mean is 0 (stats_rec: null) */
};

/*
 * Summarise n samples. scratch must have room for n values and receives
 * them sorted; samples is not modified and may not alias scratch. n == 0
 * gives all zeros: a statistic of nothing, which stats_rec writes as null. Safe for ticks up to 2^64 - 1: the mean and variance
 * are taken over deviations from the minimum.
 */
void stats_compute(const uint64_t *samples, size_t n, uint64_t *scratch,
		   struct stats *out);

/* The p-quantile (0 <= p <= 1) of n sorted values: linear interpolation
 * between the order statistics at (n - 1) p, as numpy.percentile's default
 * ("type 7", Hyndman and Fan 1996). 0 when n is 0. */
double stats_quantile(const uint64_t *sorted, size_t n, double p);

/* Convert a tick count to nanoseconds at tsc_hz; 0 when tsc_hz is 0. */
double stats_ticks_to_ns(double ticks, uint64_t tsc_hz);

/*
 * Square root by Newton's method (the kernel has no libm): within one ulp
 * of the correctly rounded result, exact for perfect squares; NaN for x < 0.
 */
double stats_sqrt(double x);

/* Sort n values ascending in place (heapsort: O(n log n), no extra memory). */
void stats_sort_u64(uint64_t *v, size_t n);

#endif

/* A STREAM-like reference for benches/membw-vs-sysbench.sh, written for
 * quickbench (not STREAM's source): copy a[i] = b[i] and triad
 * a[i] = b[i] + s * c[i] over three double arrays, OpenMP threads
 * (OMP_NUM_THREADS, bind them with OMP_PROC_BIND=close OMP_PLACES=cores),
 * arrays first-touched by the threads that use them (same static schedule),
 * transparent huge pages requested (madvise), best of PASSES passes, STREAM's byte counting (16 and 24 bytes per
 * element), GB/s = 10^9 B/s.
 *
 * Build: gcc -O3 -march=native -fopenmp stream_ref.c -o stream_ref
 *        add -DUSE_NT for non-temporal (streaming) stores on x86_64.
 * Run:   stream_ref ARRAY_MIB PASSES
 * Prints one line: {"threads":N,"array_mib":M,"copy_gb_per_s":X,"triad_gb_per_s":Y}
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#ifdef USE_NT
#include <emmintrin.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 1024;
    int passes = argc > 2 ? atoi(argv[2]) : 5;
    long n = mib * 1024L * 1024L / (long)sizeof(double);
    n -= n % 64;
    double *a, *b, *c;
    if (posix_memalign((void **)&a, 2 << 20, n * sizeof(double)) ||
        posix_memalign((void **)&b, 2 << 20, n * sizeof(double)) ||
        posix_memalign((void **)&c, 2 << 20, n * sizeof(double))) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* Transparent huge pages, as quickbench asks for its arrays (fewer TLB
     * misses; in a VM, far cheaper nested page walks). */
    madvise(a, n * sizeof(double), MADV_HUGEPAGE);
    madvise(b, n * sizeof(double), MADV_HUGEPAGE);
    madvise(c, n * sizeof(double), MADV_HUGEPAGE);
    const double s = 3.0;
    int threads = 1;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    double best_copy = 1e30, best_triad = 1e30;
    for (int p = 0; p < passes; p++) {
        double t = now();
#ifdef USE_NT
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i += 8) {
            for (int k = 0; k < 8; k += 2)
                _mm_stream_pd(a + i + k, _mm_load_pd(b + i + k));
        }
        _mm_sfence();
#else
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i];
#endif
        t = now() - t;
        if (t < best_copy)
            best_copy = t;
        t = now();
#ifdef USE_NT
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i += 8) {
            __m128d vs = _mm_set1_pd(s);
            for (int k = 0; k < 8; k += 2)
                _mm_stream_pd(a + i + k, _mm_add_pd(_mm_load_pd(b + i + k),
                                                    _mm_mul_pd(vs, _mm_load_pd(c + i + k))));
        }
        _mm_sfence();
#else
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
#endif
        t = now() - t;
        if (t < best_triad)
            best_triad = t;
    }
    if (a[n / 2] != 2.0 + s * 0.5) {
        fprintf(stderr, "wrong result %f\n", a[n / 2]);
        return 1;
    }
    printf("{\"threads\":%d,\"array_mib\":%ld,\"copy_gb_per_s\":%.3f,\"triad_gb_per_s\":%.3f}\n",
           threads, mib, 16.0 * n / best_copy / 1e9, 24.0 * n / best_triad / 1e9);
    return 0;
}

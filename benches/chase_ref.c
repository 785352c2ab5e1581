/* A plain pointer-chase reference for benches/work-latency.sh, written for
 * quickbench: one buffer, its 64-byte lines (or one line per 4 KiB page)
 * linked in one random cycle (Sattolo's algorithm, SplitMix64 draws),
 * transparent huge pages asked for (MADV_HUGEPAGE; MADV_NOHUGEPAGE for
 * the page layout), then p = *p for SECONDS, timed over batches of 1M
 * loads (one clock read per batch).
 *
 * Build: gcc -O2 chase_ref.c -o chase_ref
 * Run:   chase_ref SIZE_BYTES lines|pages SECONDS
 * Prints one line: {"size_bytes":N,"layout":"lines","ns_per_load":X}
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t sm;
static uint64_t splitmix64(void)
{
    uint64_t z = (sm += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: chase_ref SIZE_BYTES lines|pages SECONDS\n");
        return 2;
    }
    size_t bytes = strtoull(argv[1], 0, 10);
    int pages = strcmp(argv[2], "pages") == 0;
    double secs = atof(argv[3]);
    size_t huge = 2 << 20;
    char *map = mmap(0, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    char *base = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
    madvise(base, bytes, pages ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
    size_t n = pages ? bytes / 4096 : bytes / 64;
    size_t *next = malloc(n * sizeof *next);
    for (size_t i = 0; i < n; i++)
        next[i] = i;
    sm = 1;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = splitmix64() % i;
        size_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
#define SLOT(i) (pages ? (i) * 4096 + ((i) * 7 % 64) * 64 : (i) * 64)
    for (size_t i = 0; i < n; i++)
        *(char **)(base + SLOT(i)) = base + SLOT(next[i]);
    free(next);
    char **p = (char **)base;
    /* Warm up: one batch. */
    for (long k = 0; k < 1 << 20; k++)
        p = (char **)*p;
    uint64_t loads = 0;
    double t0 = now(), t;
    do {
        for (long k = 0; k < 1 << 20; k++)
            p = (char **)*p;
        loads += 1 << 20;
        t = now();
    } while (t - t0 < secs);
    printf("{\"size_bytes\":%zu,\"layout\":\"%s\",\"ns_per_load\":%.3f,\"end\":%p}\n", bytes,
           pages ? "pages" : "lines", (t - t0) * 1e9 / loads, (void *)p);
    return 0;
}

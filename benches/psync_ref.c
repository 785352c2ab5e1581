/* The smallest psync loop, a reference for benches/io-vs-fio.sh, written
 * for quickbench: what one thread doing synchronous O_DIRECT pwrite/pread
 * of one block at a time costs with nothing else around it. fio's psync
 * engine and quickbench's engine both do this plus their own bookkeeping;
 * set against this loop, each one's overhead shows.
 *
 * Writes: a named file FILE, fallocate'd to SIZE bytes, O_DIRECT,
 * sequential pwrite of BS bytes from offset 0 (wrapping at SIZE) until
 * SECS have passed, then one fdatasync counted in the elapsed time. Reads:
 * the same file, sequential pread over the first WRITTEN bytes (what the
 * write pass wrote, so no hole is ever read), wrapping. The monotonic
 * clock around every call gives the mean latency. The file is removed.
 * Each pass starts after a 200 ms sleep, as quickbench's lines and fio's
 * jobs do: the scheduler's estimate of the thread's CPU use must decay
 * after the setup, or on some VMs every completion is served on another
 * vCPU for the whole pass (see README.md, storage bandwidth). A second
 * thread wakes every 10 ms meanwhile, as fio's main process and
 * quickbench's watch thread do: on VMs whose idle vCPUs halt, that too
 * changes where completions are served.
 *
 * Build: gcc -O2 -pthread psync_ref.c -o psync_ref
 * Run:   psync_ref FILE BS SIZE SECS
 * Prints two lines, {"rw":"write",...} and {"rw":"read",...}, with
 * ios, iops, mb_per_s (10^6 B/s) and lat_mean_us.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wakes every 10 ms until the process ends. */
static void *watch(void *arg)
{
    (void)arg;
    for (;;)
        usleep(10000);
    return NULL;
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "psync_ref: %s %s: %s\n", what, path, strerror(errno));
    if (path)
        unlink(path);
    exit(1);
}

/* One pass; returns the bytes covered (for the read pass's bound). */
static long long pass(int fd, const char *path, int write, void *buf, long bs,
                      long long span, double secs)
{
    long long off = 0, ios = 0, covered = 0;
    usleep(200000);
    double lat = 0, t0 = now(), end = t0 + secs, t;
    for (;;) {
        double a = now();
        ssize_t r = write ? pwrite(fd, buf, bs, off) : pread(fd, buf, bs, off);
        t = now();
        if (r != bs)
            die(write ? "pwrite" : "pread", path);
        lat += t - a;
        ios++;
        off += bs;
        if (off > covered)
            covered = off;
        if (off + bs > span)
            off = 0;
        if (t >= end)
            break;
    }
    if (write && fdatasync(fd) != 0)
        die("fdatasync", path);
    t = now() - t0;
    printf("{\"rw\":\"%s\",\"ios\":%lld,\"iops\":%.1f,\"mb_per_s\":%.3f,\"lat_mean_us\":%.3f}\n",
           write ? "write" : "read", ios, ios / t, ios * (double)bs / t / 1e6,
           lat / ios * 1e6);
    return covered;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: psync_ref FILE BS SIZE SECS\n");
        return 2;
    }
    const char *path = argv[1];
    long bs = atol(argv[2]);
    long long size = atoll(argv[3]);
    double secs = atof(argv[4]);
    if (bs <= 0 || size < bs || secs <= 0) {
        fprintf(stderr, "psync_ref: bad BS, SIZE or SECS\n");
        return 2;
    }
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, watch, NULL) != 0) {
        fprintf(stderr, "psync_ref: cannot create the watch thread\n");
        return 1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        die("open", path);
    if (fallocate(fd, 0, 0, size) != 0 && ftruncate(fd, size) != 0)
        die("fallocate", path);
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT) != 0)
        die("O_DIRECT", path);
    void *buf;
    if (posix_memalign(&buf, 4096, bs) != 0)
        die("posix_memalign", path);
    for (long i = 0; i < bs; i++)
        ((unsigned char *)buf)[i] = (unsigned char)(i * 2654435761u >> 13);
    long long written = pass(fd, path, 1, buf, bs, size, secs);
    pass(fd, path, 0, buf, bs, written, secs);
    close(fd);
    unlink(path);
    return 0;
}

/*
 * floor: the platform floor of a perf-signal sampler.
 *
 * Spins a busy loop for a FIXED amount of work on N threads and measures its own CPU and wall
 * time. With --interval NS, each thread first opens a perf_event_open(PERF_COUNT_SW_CPU_CLOCK)
 * counter on itself with sample_period = NS, routed to itself as a signal on every overflow
 * (F_SETOWN_EX/F_OWNER_TID + F_SETSIG + O_ASYNC), exactly as candor's `cpu` engine does. The signal
 * handler is EMPTY: it only counts. So
 *
 *     cost per signal = (cpu_ns with signals - cpu_ns without) / signals
 *
 * for the same work is the least a sample can cost on this machine, before any stack walking.
 *
 * With --nosignal the counter overflows at the same period but is not routed to a signal: that
 * isolates the cost of the timer interrupt alone (the difference is the cost of signal delivery).
 *
 * Usage: floor [--threads N] [--interval NS] [--work ITERATIONS] [--signal NUM] [--nosignal]
 * Output (one JSON line on stdout):
 *   {"threads":1,"interval_ns":1000000,"work":...,"cpu_ns":...,"user_ns":...,"sys_ns":...,
 *    "wall_ns":...,"signals":...,"periods":...,"perf_ok":true}
 * periods = the counters' final values / interval: how many times the period elapsed.
 * cpu_ns is the process CPU time (CLOCK_PROCESS_CPUTIME_ID) spent from before the threads start
 * until after they are joined; user_ns/sys_ns come from getrusage(RUSAGE_SELF) over the same span.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long g_interval_ns = 0;      /* 0: no perf event, no signals */
static uint64_t g_work = 2000000000ULL; /* loop iterations per thread */
static int g_signal = SIGVTALRM;
static int g_nosignal = 0;
static volatile uint64_t g_periods = 0;

static volatile uint64_t g_signals = 0; /* updated with atomics from the handler */
static volatile int g_perf_failed = 0;
static volatile uint64_t g_sink = 0;

static void on_signal(int sig, siginfo_t *info, void *uctx) {
    (void)sig; (void)info; (void)uctx;
    __atomic_fetch_add(&g_signals, 1, __ATOMIC_RELAXED);
}

static uint64_t now_ns(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv) {
    return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

static int open_perf_for_this_thread(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.sample_period = (uint64_t)g_interval_ns;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.disabled = 0;
    attr.wakeup_events = 1;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "floor: perf_event_open: %s\n", strerror(errno));
        return -1;
    }
    if (g_nosignal) return fd;
    struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
    if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, g_signal) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC | O_NONBLOCK) != 0) {
        fprintf(stderr, "floor: fcntl: %s\n", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* A fixed amount of integer work that the compiler cannot fold away. */
static uint64_t spin(uint64_t iterations, uint64_t seed) {
    uint64_t x = seed | 1, acc = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17; /* xorshift64 */
        acc += x * 0x9E3779B97F4A7C15ULL;
        __asm__ volatile("" : "+r"(acc));
    }
    return acc;
}

static void *worker(void *arg) {
    uint64_t seed = (uint64_t)(uintptr_t)arg + 0x1234567ULL;
    int fd = -1;
    if (g_interval_ns > 0) {
        fd = open_perf_for_this_thread();
        if (fd < 0) g_perf_failed = 1;
    }
    uint64_t r = spin(g_work, seed);
    if (fd >= 0) {
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        uint64_t count = 0;
        if (read(fd, &count, sizeof count) == (ssize_t)sizeof count)
            __atomic_fetch_add(&g_periods, count / (uint64_t)g_interval_ns, __ATOMIC_RELAXED);
        close(fd);
    }
    __atomic_fetch_add(&g_sink, r, __ATOMIC_RELAXED);
    return NULL;
}

static void usage(void) {
    fprintf(stderr, "usage: floor [--threads N] [--interval NS] [--work ITERATIONS] [--signal NUM] [--nosignal]\n");
    exit(2);
}

int main(int argc, char **argv) {
    int threads = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--nosignal")) { g_nosignal = 1; continue; }
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "--threads")) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--interval")) g_interval_ns = atol(argv[++i]);
        else if (!strcmp(argv[i], "--work")) g_work = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--signal")) g_signal = atoi(argv[++i]);
        else usage();
    }
    if (threads < 1 || threads > 256 || g_interval_ns < 0) usage();

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(g_signal, &sa, NULL) != 0) { perror("sigaction"); return 1; }

    pthread_t tids[256];
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    uint64_t wall0 = now_ns(CLOCK_MONOTONIC);
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    for (int t = 0; t < threads; t++) pthread_join(tids[t], NULL);
    uint64_t wall1 = now_ns(CLOCK_MONOTONIC);
    uint64_t cpu1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    getrusage(RUSAGE_SELF, &ru1);

    printf("{\"threads\":%d,\"interval_ns\":%ld,\"work\":%llu,\"cpu_ns\":%llu,\"user_ns\":%llu,"
           "\"sys_ns\":%llu,\"wall_ns\":%llu,\"signals\":%llu,\"periods\":%llu,\"nosignal\":%s,"
           "\"perf_ok\":%s,\"sink\":%llu}\n",
           threads, g_interval_ns, (unsigned long long)g_work,
           (unsigned long long)(cpu1 - cpu0),
           (unsigned long long)(tv_ns(ru1.ru_utime) - tv_ns(ru0.ru_utime)),
           (unsigned long long)(tv_ns(ru1.ru_stime) - tv_ns(ru0.ru_stime)),
           (unsigned long long)(wall1 - wall0),
           (unsigned long long)__atomic_load_n(&g_signals, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&g_periods, __ATOMIC_RELAXED),
           g_nosignal ? "true" : "false",
           g_perf_failed ? "false" : "true",
           (unsigned long long)(g_sink & 0xffff));
    return g_perf_failed ? 3 : 0;
}

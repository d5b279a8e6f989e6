// What a context switch costs with a per-thread CPU timer armed, outside any JVM (issue 15, item 1).
//
//   cc -O2 -pthread -o ctxsw_cost ctxsw_cost.c
//   ctxsw_cost pingpong none|perf|ctimer|percpu PERIOD_NS ROUNDTRIPS [pin]   two threads bounce a byte through two
//       pipes ROUNDTRIPS times (4 context switches per round trip when both share CPU 0 with `pin`); each thread
//       first arms its own timer: perf cpu-clock (PERF_COUNT_SW_CPU_CLOCK, user-only, sample_period PERIOD_NS,
//       no ring, no signal) or timer_create(CLOCK_THREAD_CPUTIME_ID) every PERIOD_NS with an empty handler;
//       percpu: no per-thread timer, one cpu-clock event per CPU (pid -1: root or perf_event_paranoid <= 0)
//       opened before the threads start, as a per-CPU sampler would.
//   ctxsw_cost rearm NEAR_NS ITERATIONS                           arm a CLOCK_MONOTONIC timerfd NEAR_NS ahead
//       and disarm it, ITERATIONS times: when NEAR_NS is below the CPU's next timer the clockevent device is
//       reprogrammed twice per iteration (in a KVM guest with lapic-deadline: two trapped MSR writes); with
//       NEAR_NS = 10 s it is not.
//   ctxsw_cost idle PERIOD_NS SECONDS [exclude_idle]               one per-CPU cpu-clock event per CPU (period
//       PERIOD_NS, optionally exclude_idle), then sleep SECONDS: run under `perf stat -a -e
//       irq_vectors:local_timer_entry` to see whether a per-CPU sampler wakes idle CPUs.
// Prints one JSON line: wall, user and system CPU of the process per iteration (ns).
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static const char *mode;
static long long period_ns;
static long roundtrips;
static int pin;
static int p1[2], p2[2];

static double now_s(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void empty(int sig) { (void)sig; }

static void arm(void) {
    if (pin) {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(0, &s);
        pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    }
    if (!strcmp(mode, "perf")) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.sample_period = period_ns;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) { perror("perf_event_open"); exit(1); }
    } else if (!strcmp(mode, "ctimer")) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGVTALRM;
        ev._sigev_un._tid = gettid();
        timer_t t;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t)) { perror("timer_create"); exit(1); }
        struct itimerspec its = {{period_ns / 1000000000, period_ns % 1000000000},
                                 {period_ns / 1000000000, period_ns % 1000000000}};
        timer_settime(t, 0, &its, NULL);
    }
}

static void *pong(void *x) {
    (void)x;
    arm();
    char c;
    for (long i = 0; i < roundtrips; i++) {
        if (read(p1[0], &c, 1) != 1 || write(p2[1], &c, 1) != 1) exit(2);
    }
    return NULL;
}

static void report(const char *what, long n, double wall, struct rusage *a, struct rusage *b) {
    double u = (b->ru_utime.tv_sec - a->ru_utime.tv_sec) + (b->ru_utime.tv_usec - a->ru_utime.tv_usec) * 1e-6;
    double s = (b->ru_stime.tv_sec - a->ru_stime.tv_sec) + (b->ru_stime.tv_usec - a->ru_stime.tv_usec) * 1e-6;
    printf("{\"test\":\"%s\",\"mode\":\"%s\",\"period_ns\":%lld,\"n\":%ld,\"pin\":%d,\"wall_ns\":%.1f,"
           "\"user_ns\":%.1f,\"sys_ns\":%.1f,\"cpu_ns\":%.1f,\"vcsw\":%ld,\"ivcsw\":%ld}\n",
           what, mode, period_ns, n, pin, wall / n * 1e9, u / n * 1e9, s / n * 1e9, (u + s) / n * 1e9,
           b->ru_nvcsw - a->ru_nvcsw, b->ru_nivcsw - a->ru_nivcsw);
}

int main(int argc, char **argv) {
    if (argc >= 5 && !strcmp(argv[1], "pingpong")) {
        mode = argv[2];
        period_ns = atoll(argv[3]);
        roundtrips = atol(argv[4]);
        pin = argc > 5 && !strcmp(argv[5], "pin");
        signal(SIGVTALRM, empty);
        if (!strcmp(mode, "percpu")) {
            for (int cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++) {
                struct perf_event_attr pa;
                memset(&pa, 0, sizeof pa);
                pa.size = sizeof pa;
                pa.type = PERF_TYPE_SOFTWARE;
                pa.config = PERF_COUNT_SW_CPU_CLOCK;
                pa.sample_period = period_ns;
                if (syscall(SYS_perf_event_open, &pa, -1, cpu, -1, 0) < 0) { perror("perf_event_open cpu"); return 1; }
            }
        }
        if (pipe(p1) || pipe(p2)) return 1;
        pthread_t t;
        struct rusage a, b;
        getrusage(RUSAGE_SELF, &a);
        double w0 = now_s(CLOCK_MONOTONIC);
        pthread_create(&t, NULL, pong, NULL);
        arm();
        char c = 'x';
        for (long i = 0; i < roundtrips; i++) {
            if (write(p1[1], &c, 1) != 1 || read(p2[0], &c, 1) != 1) return 2;
        }
        pthread_join(t, NULL);
        double w1 = now_s(CLOCK_MONOTONIC);
        getrusage(RUSAGE_SELF, &b);
        report("pingpong", roundtrips, w1 - w0, &a, &b);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "rearm")) {
        mode = "timerfd";
        period_ns = atoll(argv[2]);
        long n = atol(argv[3]);
        int fd = timerfd_create(CLOCK_MONOTONIC, 0);
        struct itimerspec on = {{0, 0}, {period_ns / 1000000000, period_ns % 1000000000}}, off;
        memset(&off, 0, sizeof off);
        struct rusage a, b;
        getrusage(RUSAGE_SELF, &a);
        double w0 = now_s(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++) {
            timerfd_settime(fd, 0, &on, NULL);
            timerfd_settime(fd, 0, &off, NULL);
        }
        double w1 = now_s(CLOCK_MONOTONIC);
        getrusage(RUSAGE_SELF, &b);
        report("rearm", n, w1 - w0, &a, &b);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "idle")) {
        period_ns = atoll(argv[2]);
        int excl = argc > 4 && !strcmp(argv[4], "exclude_idle");
        for (int cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++) {
            struct perf_event_attr pa;
            memset(&pa, 0, sizeof pa);
            pa.size = sizeof pa;
            pa.type = PERF_TYPE_SOFTWARE;
            pa.config = PERF_COUNT_SW_CPU_CLOCK;
            pa.sample_period = period_ns;
            pa.exclude_idle = excl;
            if (period_ns && syscall(SYS_perf_event_open, &pa, -1, cpu, -1, 0) < 0) { perror("perf_event_open"); return 1; }
        }
        sleep(atoi(argv[3]));
        printf("{\"test\":\"idle\",\"period_ns\":%lld,\"exclude_idle\":%d}\n", period_ns, excl);
        return 0;
    }
    fprintf(stderr, "usage: %s pingpong none|perf|ctimer PERIOD_NS ROUNDTRIPS [pin] | rearm NEAR_NS ITERATIONS\n",
            argv[0]);
    return 1;
}

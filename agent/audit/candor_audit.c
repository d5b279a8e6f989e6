/* candor_audit.so: an LD_PRELOAD interposer that finds calls which are not async-signal-safe
 * made from inside candor's signal handler, during a real profiling run.
 *
 * How it knows "inside the handler" without changing the agent: it interposes sigaction().
 * When a handler whose code lies in a library matching CANDOR_AUDIT_MATCH (default
 * "libcandor") is installed, it installs its own wrapper instead, which raises a thread-local
 * depth counter around the call of the real handler. Every interposed function (malloc and
 * friends, pthread locks and condition variables, stdio and formatting, dynamic loader calls,
 * backtrace, ...) checks that counter; a call made at depth > 0 is a violation: counted, and
 * the first ones recorded with the caller's address (a return address: async-signal-safe to
 * take; resolved with dladdr only when the report is written).
 *
 * The report is written at exit to CANDOR_AUDIT_REPORT (default stderr):
 *   candor-audit: handler_entries=N violations=N
 *   candor-audit: count malloc=N ...            (only functions that were hit)
 *   candor-audit: violation malloc from /path/libcandor.so+0x1234 (symbol+0x10)
 * Build: cc -shared -fPIC -O2 -o candor_audit.so candor_audit.c -ldl -lpthread
 * Self-test (proves it can fail): audit_selftest.c. Used by itest SignalSafetyAuditTest.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- state ------------------------------------------------------------------------------ */

/* initial-exec: the preloaded library's TLS is static, reading it allocates nothing. */
static __thread int tDepth __attribute__((tls_model("initial-exec")));

enum {
  F_malloc, F_free, F_calloc, F_realloc, F_reallocarray, F_memalign, F_posix_memalign, F_aligned_alloc,
  F_valloc, F_pvalloc,
  F_pthread_mutex_lock, F_pthread_mutex_trylock, F_pthread_mutex_timedlock, F_pthread_mutex_unlock,
  F_pthread_rwlock_rdlock, F_pthread_rwlock_wrlock, F_pthread_rwlock_tryrdlock, F_pthread_rwlock_trywrlock,
  F_pthread_rwlock_unlock, F_pthread_cond_wait, F_pthread_cond_timedwait, F_pthread_cond_signal,
  F_pthread_cond_broadcast, F_pthread_spin_lock, F_pthread_once, F_sem_wait, F_sem_timedwait,
  F_pthread_create, F_pthread_join,
  F_printf, F_fprintf, F_vfprintf, F_vprintf, F_dprintf, F_vdprintf, F_sprintf, F_vsprintf, F_snprintf,
  F_vsnprintf, F_puts, F_fputs, F_fputc, F_putc, F_fwrite, F_fflush, F_fopen, F_fclose, F_fdopen, F_perror,
  F_strerror, F_dlopen, F_dlclose, F_dladdr, F_dl_iterate_phdr, F_backtrace, F_syslog, F_exit,
  F_localtime, F_getenv, F_setenv,
  F_COUNT
};

static const char* const kNames[F_COUNT] = {
  "malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
  "valloc", "pvalloc",
  "pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_timedlock", "pthread_mutex_unlock",
  "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock",
  "pthread_rwlock_unlock", "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_signal",
  "pthread_cond_broadcast", "pthread_spin_lock", "pthread_once", "sem_wait", "sem_timedwait",
  "pthread_create", "pthread_join",
  "printf", "fprintf", "vfprintf", "vprintf", "dprintf", "vdprintf", "sprintf", "vsprintf", "snprintf",
  "vsnprintf", "puts", "fputs", "fputc", "putc", "fwrite", "fflush", "fopen", "fclose", "fdopen", "perror",
  "strerror", "dlopen", "dlclose", "dladdr", "dl_iterate_phdr", "backtrace", "syslog", "exit",
  "localtime", "getenv", "setenv",
};

static atomic_ulong gCounts[F_COUNT];
static atomic_ulong gEntries;
static atomic_ulong gViolations;
static atomic_ulong gWrapped;

#define MAX_RECORDS 64
static struct { int fn; int tid; void* caller; } gRecords[MAX_RECORDS];
static atomic_uint gRecordCount;

static void violation(int fn, void* caller) {
  atomic_fetch_add_explicit(&gCounts[fn], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&gViolations, 1, memory_order_relaxed);
  unsigned i = atomic_fetch_add_explicit(&gRecordCount, 1, memory_order_relaxed);
  if (i < MAX_RECORDS) {
    gRecords[i].fn = fn;
    gRecords[i].tid = (int)syscall(SYS_gettid);
    gRecords[i].caller = caller;
  }
}

#define CHECK(fn) \
  do { \
    if (__builtin_expect(tDepth > 0, 0)) violation(F_##fn, __builtin_return_address(0)); \
  } while (0)

/* Real functions: glibc's __libc_* for the allocator (no dlsym needed, so no bootstrap loop),
 * dlsym(RTLD_NEXT) for the rest, looked up on first use from normal context. */
extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void* __libc_valloc(size_t);
extern void* __libc_pvalloc(size_t);

#define REAL(ret, name, ...) \
  static ret (*real_##name)(__VA_ARGS__); \
  if (real_##name == NULL) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)
/* dlsym itself is not interposed: RTLD_NEXT must stay relative to its real caller. */

/* ---- the handler wrapper ---------------------------------------------------------------- */

static void* gHandlers[65];  /* the audited handler per signal */
static int gHandlerIsInfo[65];

static void auditWrapper(int sig, siginfo_t* info, void* uc) {
  atomic_fetch_add_explicit(&gEntries, 1, memory_order_relaxed);
  tDepth++;
  void* h = (sig > 0 && sig < 65) ? gHandlers[sig] : NULL;
  if (h != NULL) {
    if (gHandlerIsInfo[sig]) ((void (*)(int, siginfo_t*, void*))h)(sig, info, uc);
    else ((void (*)(int))h)(sig);
  }
  tDepth--;
}

static int matches(void* handler) {
  Dl_info di;
  /* our own dladdr wrapper only counts; this runs in normal context (sigaction is not called
   * from the audited handler) */
  if (handler == NULL || dladdr(handler, &di) == 0 || di.dli_fname == NULL) return 0;
  const char* want = getenv("CANDOR_AUDIT_MATCH");
  if (want == NULL || *want == '\0') want = "libcandor";
  return strstr(di.dli_fname, want) != NULL;
}

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  REAL(int, sigaction, int, const struct sigaction*, struct sigaction*);
  struct sigaction copy;
  if (act != NULL && sig > 0 && sig < 65) {
    void* h = (act->sa_flags & SA_SIGINFO) ? (void*)act->sa_sigaction : (void*)act->sa_handler;
    /* candor's crash guard (walk=vm) is not wrapped: it siglongjmps out of a fault in the
     * walker, so a wrapper would never see it return and its depth would stay raised. It needs
     * no wrapper to be audited: a walker fault happens inside the wrapped sampling handler, at
     * depth > 0 already; faults of the JVM's own (forwarded to its handler) stay at depth 0. */
    int guard = sig == SIGSEGV || sig == SIGBUS;
    if (!guard && h != (void*)SIG_DFL && h != (void*)SIG_IGN && h != (void*)auditWrapper && matches(h)) {
      gHandlers[sig] = h;
      gHandlerIsInfo[sig] = (act->sa_flags & SA_SIGINFO) != 0;
      copy = *act;
      copy.sa_sigaction = auditWrapper;
      copy.sa_flags |= SA_SIGINFO;
      act = &copy;
      atomic_fetch_add(&gWrapped, 1);
    }
  }
  int r = real_sigaction(sig, act, old);
  if (r == 0 && old != NULL && sig > 0 && sig < 65 && old->sa_sigaction == auditWrapper && gHandlers[sig] != NULL) {
    if (gHandlerIsInfo[sig]) old->sa_sigaction = (void (*)(int, siginfo_t*, void*))gHandlers[sig];
    else {
      old->sa_handler = (void (*)(int))gHandlers[sig];
      old->sa_flags &= ~SA_SIGINFO;
    }
  }
  return r;
}

/* ---- allocator ---------------------------------------------------------------------------- */

void* malloc(size_t n) { CHECK(malloc); return __libc_malloc(n); }
void free(void* p) { CHECK(free); __libc_free(p); }
void* calloc(size_t a, size_t b) { CHECK(calloc); return __libc_calloc(a, b); }
void* realloc(void* p, size_t n) { CHECK(realloc); return __libc_realloc(p, n); }
void* memalign(size_t a, size_t n) { CHECK(memalign); return __libc_memalign(a, n); }
void* aligned_alloc(size_t a, size_t n) { CHECK(aligned_alloc); return __libc_memalign(a, n); }
void* valloc(size_t n) { CHECK(valloc); return __libc_valloc(n); }
void* pvalloc(size_t n) { CHECK(pvalloc); return __libc_pvalloc(n); }
void* reallocarray(void* p, size_t a, size_t b) {
  CHECK(reallocarray);
  if (b != 0 && a > SIZE_MAX / b) return NULL;
  return __libc_realloc(p, a * b);
}
int posix_memalign(void** out, size_t a, size_t n) {
  CHECK(posix_memalign);
  if (a < sizeof(void*) || (a & (a - 1)) != 0) return 22; /* EINVAL */
  void* p = __libc_memalign(a, n);
  if (p == NULL) return 12; /* ENOMEM */
  *out = p;
  return 0;
}

/* ---- locks and threads ---------------------------------------------------------------------- */

#define PASS1(ret, name, T1) \
  ret name(T1 a) { CHECK(name); REAL(ret, name, T1); return real_##name(a); }
#define PASS2(ret, name, T1, T2) \
  ret name(T1 a, T2 b) { CHECK(name); REAL(ret, name, T1, T2); return real_##name(a, b); }
#define PASS3(ret, name, T1, T2, T3) \
  ret name(T1 a, T2 b, T3 c) { CHECK(name); REAL(ret, name, T1, T2, T3); return real_##name(a, b, c); }
#define PASS4(ret, name, T1, T2, T3, T4) \
  ret name(T1 a, T2 b, T3 c, T4 d) { CHECK(name); REAL(ret, name, T1, T2, T3, T4); return real_##name(a, b, c, d); }

PASS1(int, pthread_mutex_lock, pthread_mutex_t*)
PASS1(int, pthread_mutex_trylock, pthread_mutex_t*)
PASS2(int, pthread_mutex_timedlock, pthread_mutex_t*, const struct timespec*)
PASS1(int, pthread_mutex_unlock, pthread_mutex_t*)
PASS1(int, pthread_rwlock_rdlock, pthread_rwlock_t*)
PASS1(int, pthread_rwlock_wrlock, pthread_rwlock_t*)
PASS1(int, pthread_rwlock_tryrdlock, pthread_rwlock_t*)
PASS1(int, pthread_rwlock_trywrlock, pthread_rwlock_t*)
PASS1(int, pthread_rwlock_unlock, pthread_rwlock_t*)
PASS2(int, pthread_cond_wait, pthread_cond_t*, pthread_mutex_t*)
PASS3(int, pthread_cond_timedwait, pthread_cond_t*, pthread_mutex_t*, const struct timespec*)
PASS1(int, pthread_cond_signal, pthread_cond_t*)
PASS1(int, pthread_cond_broadcast, pthread_cond_t*)
PASS1(int, pthread_spin_lock, pthread_spinlock_t*)
typedef void (*OnceFn)(void);
PASS2(int, pthread_once, pthread_once_t*, OnceFn)
PASS1(int, sem_wait, sem_t*)
PASS2(int, sem_timedwait, sem_t*, const struct timespec*)
typedef void* (*StartFn)(void*);
PASS4(int, pthread_create, pthread_t*, const pthread_attr_t*, StartFn, void*)
PASS2(int, pthread_join, pthread_t, void**)

/* ---- stdio and formatting ------------------------------------------------------------------- */

int vfprintf(FILE* f, const char* fmt, va_list ap) { CHECK(vfprintf); REAL(int, vfprintf, FILE*, const char*, va_list); return real_vfprintf(f, fmt, ap); }
int vprintf(const char* fmt, va_list ap) { CHECK(vprintf); REAL(int, vprintf, const char*, va_list); return real_vprintf(fmt, ap); }
int vdprintf(int fd, const char* fmt, va_list ap) { CHECK(vdprintf); REAL(int, vdprintf, int, const char*, va_list); return real_vdprintf(fd, fmt, ap); }
int vsprintf(char* s, const char* fmt, va_list ap) { CHECK(vsprintf); REAL(int, vsprintf, char*, const char*, va_list); return real_vsprintf(s, fmt, ap); }
int vsnprintf(char* s, size_t n, const char* fmt, va_list ap) { CHECK(vsnprintf); REAL(int, vsnprintf, char*, size_t, const char*, va_list); return real_vsnprintf(s, n, fmt, ap); }

#define VARIADIC(name, vname, call) \
  { CHECK(name); va_list ap; va_start(ap, fmt); REAL(int, vname, VPROTO_##vname); int r = call; va_end(ap); return r; }
#define VPROTO_vfprintf FILE*, const char*, va_list
#define VPROTO_vprintf const char*, va_list
#define VPROTO_vdprintf int, const char*, va_list
#define VPROTO_vsprintf char*, const char*, va_list
#define VPROTO_vsnprintf char*, size_t, const char*, va_list
int printf(const char* fmt, ...) VARIADIC(printf, vprintf, real_vprintf(fmt, ap))
int fprintf(FILE* f, const char* fmt, ...) VARIADIC(fprintf, vfprintf, real_vfprintf(f, fmt, ap))
int dprintf(int fd, const char* fmt, ...) VARIADIC(dprintf, vdprintf, real_vdprintf(fd, fmt, ap))
int sprintf(char* s, const char* fmt, ...) VARIADIC(sprintf, vsprintf, real_vsprintf(s, fmt, ap))
int snprintf(char* s, size_t n, const char* fmt, ...) VARIADIC(snprintf, vsnprintf, real_vsnprintf(s, n, fmt, ap))

PASS1(int, puts, const char*)
PASS2(int, fputs, const char*, FILE*)
PASS2(int, fputc, int, FILE*)
PASS2(int, putc, int, FILE*)
PASS4(size_t, fwrite, const void*, size_t, size_t, FILE*)
PASS1(int, fflush, FILE*)
PASS2(FILE*, fopen, const char*, const char*)
PASS1(int, fclose, FILE*)
PASS2(FILE*, fdopen, int, const char*)
void perror(const char* s) { CHECK(perror); REAL(void, perror, const char*); real_perror(s); }
PASS1(char*, strerror, int)

/* ---- loader, unwinding, misc ------------------------------------------------------------------ */

PASS2(void*, dlopen, const char*, int)
PASS1(int, dlclose, void*)
int dladdr(const void* addr, Dl_info* info) {
  CHECK(dladdr);
  REAL(int, dladdr, const void*, Dl_info*);
  return real_dladdr(addr, info);
}
typedef int (*PhdrFn)(struct dl_phdr_info*, size_t, void*);
PASS2(int, dl_iterate_phdr, PhdrFn, void*)
PASS2(int, backtrace, void**, int)
PASS1(struct tm*, localtime, const time_t*)
PASS1(char*, getenv, const char*)
PASS3(int, setenv, const char*, const char*, int)

void syslog(int pri, const char* fmt, ...) {
  CHECK(syslog);
  va_list ap;
  va_start(ap, fmt);
  REAL(void, vsyslog, int, const char*, va_list);
  real_vsyslog(pri, fmt, ap);
  va_end(ap);
}

void exit(int code) {
  CHECK(exit);
  REAL(void, exit, int);
  real_exit(code);
  __builtin_unreachable();
}

/* ---- the report ---------------------------------------------------------------------------- */

static void emit(int fd, const char* s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

__attribute__((destructor)) static void report(void) {
  tDepth = 0;
  const char* path = getenv("CANDOR_AUDIT_REPORT");
  int fd = 2;
  if (path != NULL && *path != '\0') {
    char name[4096];
    __builtin_snprintf(name, sizeof name, "%s.%d", path, (int)getpid());
    fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fd = 2;
  }
  char line[1024];
  __builtin_snprintf(line, sizeof line, "candor-audit: wrapped_handlers=%lu handler_entries=%lu violations=%lu\n",
                     atomic_load(&gWrapped), atomic_load(&gEntries), atomic_load(&gViolations));
  emit(fd, line);
  for (int i = 0; i < F_COUNT; i++) {
    unsigned long c = atomic_load(&gCounts[i]);
    if (c == 0) continue;
    __builtin_snprintf(line, sizeof line, "candor-audit: count %s=%lu\n", kNames[i], c);
    emit(fd, line);
  }
  unsigned n = atomic_load(&gRecordCount);
  if (n > MAX_RECORDS) n = MAX_RECORDS;
  for (unsigned i = 0; i < n; i++) {
    int seen = 0;  /* one line per distinct (function, caller) */
    for (unsigned j = 0; j < i && !seen; j++) seen = gRecords[j].fn == gRecords[i].fn && gRecords[j].caller == gRecords[i].caller;
    if (seen) continue;
    Dl_info di = {0};
    void* a = gRecords[i].caller;
    if (dladdr(a, &di) != 0 && di.dli_fname != NULL) {
      int k = __builtin_snprintf(line, sizeof line, "candor-audit: violation %s from %s+0x%lx", kNames[gRecords[i].fn],
                                 di.dli_fname, (unsigned long)((char*)a - (char*)di.dli_fbase));
      if (di.dli_sname != NULL && k > 0 && (size_t)k < sizeof line) {
        __builtin_snprintf(line + k, sizeof line - (size_t)k, " (%s+0x%lx)", di.dli_sname,
                           (unsigned long)((char*)a - (char*)di.dli_saddr));
      }
    } else {
      __builtin_snprintf(line, sizeof line, "candor-audit: violation %s from %p", kNames[gRecords[i].fn], a);
    }
    emit(fd, line);
    char where[96];
    __builtin_snprintf(where, sizeof where, " on tid %d%s\n", gRecords[i].tid,
                       gRecords[i].tid == (int)getpid() ? " (the process's first thread)" : "");
    emit(fd, where);
  }
  if (fd != 2) close(fd);
}

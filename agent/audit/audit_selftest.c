/* Self-test of candor_audit.so: proves the audit can fail. Run with
 *   LD_PRELOAD=candor_audit.so CANDOR_AUDIT_MATCH=audit_selftest ./audit_selftest bad|good
 * "bad" installs a SIGURG handler that calls malloc, free, pthread_mutex_lock/unlock and
 * snprintf: the report must list them. "good" installs one that only does what is
 * async-signal-safe (atomics, write): the report must show handler entries and no violation. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t gLock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int gSeen;
static void* volatile gKeep;

static void badHandler(int sig, siginfo_t* info, void* uc) {
  (void)sig; (void)info; (void)uc;
  gKeep = malloc(64);
  free(gKeep);
  pthread_mutex_lock(&gLock);
  pthread_mutex_unlock(&gLock);
  char buf[32];
  snprintf(buf, sizeof buf, "%d", atomic_fetch_add(&gSeen, 1));
}

static void goodHandler(int sig, siginfo_t* info, void* uc) {
  (void)sig; (void)info; (void)uc;
  atomic_fetch_add(&gSeen, 1);
  if (atomic_load(&gSeen) == 1) {
    static const char msg[] = "";
    ssize_t r = write(2, msg, 0);
    (void)r;
  }
}

int main(int argc, char** argv) {
  int bad = argc > 1 && strcmp(argv[1], "bad") == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = bad ? badHandler : goodHandler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGURG, &sa, NULL) != 0) return 2;
  /* the audit reports the real handler back, not its wrapper */
  struct sigaction now;
  sigaction(SIGURG, NULL, &now);
  if (now.sa_sigaction != sa.sa_sigaction) {
    fprintf(stderr, "sigaction does not report the installed handler\n");
    return 3;
  }
  for (int i = 0; i < 10; i++) raise(SIGURG);
  /* calls outside the handler are not violations */
  void* p = malloc(100);
  free(p);
  printf("selftest %s: handler ran %d times\n", bad ? "bad" : "good", atomic_load(&gSeen));
  return 0;
}

/* The tiny JNI library of the JNI-heavy stress workload (dev.candor.itest.stress.JniStorm).
 * Built by the test: cc -shared -fPIC -O2 -I$JDK/include -I$JDK/include/linux stressjni.c
 * Native code that burns CPU, calls back into Java from native (Java -> native -> Java ->
 * native), and pins arrays with GetPrimitiveArrayCritical, so samples land in every mix of
 * native and Java frames. */
#include <jni.h>
#include <stdint.h>

static uint64_t mix(uint64_t x, int n) {
  for (int i = 0; i < n; i++) x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL + (uint64_t)i;
  return x;
}

JNIEXPORT jlong JNICALL Java_dev_candor_itest_stress_JniStorm_spin(JNIEnv* env, jclass cls, jint n, jint depth) {
  uint64_t x = mix((uint64_t)n, n);
  if (depth > 0) {
    jmethodID back = (*env)->GetStaticMethodID(env, cls, "callback", "(II)J");
    if (back == NULL) return -1;
    x += (uint64_t)(*env)->CallStaticLongMethod(env, cls, back, n, depth - 1);
    if ((*env)->ExceptionCheck(env)) return -1;
  }
  return (jlong)x;
}

JNIEXPORT jlong JNICALL Java_dev_candor_itest_stress_JniStorm_sumCritical(JNIEnv* env, jclass cls, jintArray a) {
  jsize len = (*env)->GetArrayLength(env, a);
  jint* p = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
  if (p == NULL) return -1;
  int64_t s = 0;
  for (jsize i = 0; i < len; i++) s += p[i] * (int64_t)(i | 1);
  (*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
  return (jlong)s;
}

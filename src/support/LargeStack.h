// Runs a function on a thread with a large stack and waits for it.
//
// The front end recurses over the nesting of expressions (the parser, sema, lowering) and is
// bounded by nesting limits (kMaxParseDepth, kMaxEvalDepth), not by whatever stack the caller has:
// the 8 MiB main-thread default of Linux is enough for a normal build, but frames are several
// times larger under AddressSanitizer (err_too_deep.stn overflowed there) or in debug builds, and
// the caller may be a thread with a small stack. compileModule and stnc's main run on one of these.
#pragma once
#include <pthread.h>

#include <exception>
#include <functional>

namespace stnc {

constexpr size_t kLargeStackBytes = size_t(256) << 20;  // reserved address space; pages are touched on use

inline void runOnLargeStack(const std::function<void()>& fn, size_t bytes = kLargeStackBytes) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  auto body = [](void* p) -> void* {
    Job* j = static_cast<Job*>(p);
    try {
      (*j->fn)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0;
  if (started) {
    started = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_create(&thread, &attr, body, &job) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) {  // no thread (resource limits): run here, on the caller's stack
    fn();
    return;
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace stnc

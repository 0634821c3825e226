// Ctrl+C for the commands that run a program (profile, advise --verify):
// the first asks the run to stop (polled through interrupted()), a second
// ends the process (the default handler is back by then).
#pragma once

#include <csignal>

namespace ptescope::cli {

inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

inline volatile std::sig_atomic_t gInterrupted = 0;
extern "C" inline void onInterrupt(int) {
  gInterrupted = 1;
  std::signal(SIGINT, SIG_DFL);
}

inline bool interrupted() { return gInterrupted != 0; }

// Installs the handler for its lifetime.
class InterruptGuard {
 public:
  InterruptGuard() {
    gInterrupted = 0;
    previous_ = std::signal(SIGINT, onInterrupt);
  }
  ~InterruptGuard() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*previous_)(int) = SIG_DFL;
};

}  // namespace ptescope::cli

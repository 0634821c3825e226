// Small helpers shared by the benchmark executables: wall-clock timing,
// medians, peak memory of a child process, temporary files.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ptescope::bench {

inline double seconds(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

inline double medianSeconds(int runs, const std::function<void()>& work) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(seconds(work));
  return median(times);
}

// Runs `work` in a forked child and returns the child's peak resident set
// in MiB (the parent's memory does not count).
inline double peakMiBInChild(const std::function<void()>& work) {
  const pid_t pid = fork();
  if (pid == 0) {
    work();
    _exit(0);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

// Seconds for a shell command (its output discarded), median of `runs`.
inline double commandSeconds(const std::string& command, int runs) {
  return medianSeconds(runs, [&] {
    if (std::system((command + " > /dev/null 2>&1").c_str()) != 0) std::fprintf(stderr, "command failed: %s\n", command.c_str());
  });
}

}  // namespace ptescope::bench

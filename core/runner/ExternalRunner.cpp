#include "runner/ExternalRunner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "advise/Advise.h"
#include "analysis/Dataflow.h"
#include "etdump/EtdumpProfile.h"
#include "exec/HostRuntime.h"
#include "exec/RunOnce.h"
#include "synth/WriteProgram.h"
#include "util/MappedFile.h"
#include "util/Utf8.h"

extern char** environ;

namespace ptescope::runner {
namespace {

namespace fs = std::filesystem;

constexpr size_t kKeptLogBytes = 64 * 1024;

// The private folder of one run, removed with everything in it on every path.
class TemporaryFolder {
 public:
  static Result<TemporaryFolder> create() {
    std::error_code error;
    fs::path base = fs::temp_directory_path(error);
    if (error) base = "/tmp";
    std::string pattern = (base / "ptescope-runner-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return makeError("cannot create a temporary folder in " + base.string() + ": " + std::strerror(errno));
    return TemporaryFolder(pattern);
  }
  TemporaryFolder(TemporaryFolder&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TemporaryFolder& operator=(TemporaryFolder&&) = delete;
  TemporaryFolder(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  explicit TemporaryFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

std::string readAtMost(const std::string& path, size_t limit, bool tail) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const auto size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  const size_t count = std::min(size, limit);
  in.seekg(static_cast<std::streamoff>(tail ? size - count : 0));
  std::string text(count, '\0');
  in.read(text.data(), static_cast<std::streamsize>(count));
  return text;
}

// The line of the runner's log that says what went wrong: the last Error or
// Fatal line of ET_LOG (or gflags' "ERROR:"), else the last line.
std::string keyLogLine(const std::string& log, const std::string& containing = {}) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(std::move(line));
    start = end + 1;
  }
  auto message = [](const std::string& line) {
    // "E 00:00:00.000 executorch:file.cpp:12] text" → "text"
    if (auto bracket = line.find("] "); bracket != std::string::npos && line.size() > 2 && line[1] == ' ')
      return line.substr(bracket + 2);
    return line;
  };
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!containing.empty() ? it->find(containing) != std::string::npos
                            : (it->starts_with("E ") || it->starts_with("F ") || it->starts_with("ERROR")))
      return message(*it);
  if (!containing.empty() || lines.empty()) return {};
  return message(lines.back());
}

std::string clipped(std::string text) {
  if (text.size() > 240) text = text.substr(0, 237) + "...";
  return text;
}

std::string signalText(int signal) {
  const char* name = sigabbrev_np(signal);
  return "signal " + std::to_string(signal) + (name != nullptr ? std::string(", SIG") + name : std::string());
}

struct ChildOutcome {
  bool timed_out = false;
  bool cancelled = false;
  int exit_status = -1;  // when it exited
  int signal = 0;        // when a signal ended it
};

// Starts `argv` in `folder` (its cwd) in a process group of its own, stdin
// from /dev/null, stdout and stderr to files there; waits, killing the
// whole group on timeout or cancel.
Result<ChildOutcome> runChild(const std::vector<std::string>& argv, const TemporaryFolder& folder,
                              const RunnerOptions& options) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, folder.file("stdout.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, folder.file("stderr.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, folder.path().c_str());
  // Its own group (Ctrl+C at the terminal reaches ptescope, which ends the
  // group), default signal handling and an empty mask whatever thread starts it.
  sigset_t defaults, empty;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGCHLD, SIGHUP}) sigaddset(&defaults, s);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, argv.front().c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) return makeError(std::string("cannot start it: ") + std::strerror(spawned));

  ChildOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return makeError(std::string("lost track of it: ") + std::strerror(errno));
    outcome.cancelled = options.cancel_requested && options.cancel_requested();
    outcome.timed_out = !outcome.cancelled && std::chrono::steady_clock::now() > deadline;
    if (outcome.cancelled || outcome.timed_out) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return outcome;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);  // anything it left behind in its group
  if (WIFEXITED(status)) outcome.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

constexpr const char* kNoEventTracer =
    "the runner was built without the event tracer (it does not know --etdump_path); upstream builds it with "
    "-DEXECUTORCH_BUILD_DEVTOOLS=ON -DEXECUTORCH_ENABLE_EVENT_TRACER=ON";

// One line for a runner that did not succeed, from how it ended and its log.
std::string failureText(const ChildOutcome& outcome, const std::string& log, const RunnerOptions& options) {
  if (outcome.timed_out)
    return "did not finish within " + std::to_string(int64_t(options.timeout_seconds)) + " s; it was stopped";
  if (log.find("unknown command line flag 'etdump_path'") != std::string::npos) return kNoEventTracer;
  if (auto line = keyLogLine(log, "No device allocator registered for device type"); !line.empty())
    return "the runner lacks the CUDA backend ('" + clipped(line) +
           "': the program plans buffers on a device); upstream builds it with -DEXECUTORCH_BUILD_CUDA=ON";
  if (auto line = keyLogLine(log, "Failed to parse model file"); !line.empty()) {
    const size_t at = log.rfind("Failed to parse model file");
    const size_t lineStart = log.rfind('\n', at);
    std::string why = lineStart == std::string::npos ? std::string() : keyLogLine(log.substr(0, lineStart));
    return "the runner refused the program (" + clipped(why.empty() ? line : why) +
           "): a runtime of another ExecuTorch version?";
  }
  for (const char* text : {"mismatch!", "Wrong number of inputs", "Could not load inputs", "Failed to open input file"})
    if (auto line = keyLogLine(log, text); !line.empty()) return "the runner rejected the inputs: " + clipped(line);
  const std::string last = clipped(keyLogLine(log));
  const std::string said = last.empty() ? std::string() : "; it said: " + last;
  if (outcome.signal == SIGABRT || outcome.exit_status == 134) return "the runner aborted (" + signalText(SIGABRT) + ")" + said;
  if (outcome.signal != 0) return "the runner crashed (" + signalText(outcome.signal) + ")" + said;
  return "the runner failed (exit status " + std::to_string(outcome.exit_status) + ")" + said;
}

// The bytes of each method input as executor_runner reads them: the inputs
// `profile` makes (exec::Executor::fillInputs), a tensor's bytes, an Int or
// Double as 8 bytes, a Bool as 1, nothing for None.
Result<std::vector<std::vector<uint8_t>>> inputBytes(const program::Program& program, const std::string& method,
                                                     const RunnerOptions& options) {
  exec::HostRuntime runtime;
  exec::ExecutorOptions executorOptions;
  executorOptions.max_memory = options.max_memory;
  executorOptions.budget_setting = options.budget_setting;
  auto executor = exec::Executor::create(program, method, runtime, executorOptions);
  if (!executor) return executor.error();
  exec::InputOptions inputs = options.inputs;
  if (!inputs.cancel_requested) inputs.cancel_requested = options.cancel_requested;
  if (auto status = executor.value()->fillInputs(inputs); !status)
    return makeError(status.error().message == exec::kInputsCancelled ? kRunnerCancelled : status.error().message);
  const program::Method& m = executor.value()->method();
  std::vector<std::vector<uint8_t>> out;
  for (size_t position = 0; position < program::items(m.inputs).size(); ++position) {
    const int32_t v = (*m.inputs)[position];
    const auto& value = (*m.values)[size_t(v)];
    std::vector<uint8_t> bytes;
    auto put = [&bytes](auto x) {
      bytes.resize(sizeof x);
      std::memcpy(bytes.data(), &x, sizeof x);
    };
    if (value.tensor() != nullptr) {
      auto tensor = executor.value()->readTensor(v);
      if (!tensor) return tensor.error();
      bytes = std::move(tensor->bytes);
    } else if (const auto* i = std::get_if<program::IntValue>(&value.data)) {
      put(int64_t(i->value));
    } else if (const auto* d = std::get_if<program::DoubleValue>(&value.data)) {
      put(double(d->value));
    } else if (const auto* b = std::get_if<program::BoolValue>(&value.data)) {
      put(bool(b->value));
    } else if (!std::holds_alternative<program::NoneValue>(value.data) &&
               !std::holds_alternative<program::NullValue>(value.data)) {
      return makeError("input " + std::to_string(position) + " is a " + program::valueKindName(value.kind()) +
                       "; executor_runner reads only tensors, Int, Double and Bool inputs from files");
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

// The file checks every use of a runner starts with: it exists, is no
// folder and may be executed.
Status checkRunnerFile(const std::string& runner) {
  struct stat info {};
  if (runner.empty()) return makeError("no runner named (--runner PATH or " + std::string(kRunnerEnvironment) + ")");
  if (::stat(runner.c_str(), &info) != 0) return makeError(runner + ": no such runner (" + std::strerror(errno) + ")");
  if (S_ISDIR(info.st_mode)) return makeError(runner + ": is a folder, not an ExecuTorch runner");
  if (::access(runner.c_str(), X_OK) != 0) return makeError(runner + ": is not executable");
  return Ok{};
}

}  // namespace

Status checkRunner(const std::string& runner, double timeout_seconds, std::function<bool()> cancel_requested) {
  if (auto file = checkRunnerFile(runner); !file) return file;
  auto folder = TemporaryFolder::create();
  if (!folder) return makeError(runner + ": " + folder.error().message);
  RunnerOptions options;
  options.timeout_seconds = timeout_seconds;
  options.cancel_requested = std::move(cancel_requested);
  std::error_code ignored;
  auto outcome = runChild({fs::absolute(runner, ignored).string(), "--help"}, folder.value(), options);
  if (!outcome) return makeError(runner + ": " + outcome.error().message);
  if (outcome->cancelled) return makeError(kRunnerCancelled);
  if (outcome->timed_out)
    return makeError(runner + ": did not answer --help within " + std::to_string(int64_t(timeout_seconds)) +
                     " s; not an ExecuTorch runner?");
  // gflags lists each flag as "-name (help) type: ..."; upstream's runner
  // exits 1 after --help, so the status says nothing.
  const std::string help = readAtMost(folder->file("stdout.txt"), kKeptLogBytes, false) +
                           readAtMost(folder->file("stderr.txt"), kKeptLogBytes, false);
  if (help.find("-model_path") == std::string::npos)
    return makeError(runner + ": not an ExecuTorch runner (its --help names no --model_path, as upstream's "
                     "examples/portable/executor_runner does)");
  if (help.find("-etdump_path") == std::string::npos) return makeError(runner + ": " + kNoEventTracer);
  return Ok{};
}

Result<std::string> findOnPath(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return name;
  // As a shell (execvp) looks a command up: each $PATH entry in order, an
  // empty entry the current folder; the first executable file wins.
  const char* path = std::getenv("PATH");
  const std::string entries = path != nullptr ? path : "/bin:/usr/bin";  // glibc execvp's default
  size_t start = 0;
  for (;;) {
    const size_t end = std::min(entries.find(':', start), entries.size());
    const std::string folder = entries.substr(start, end - start);
    const std::string candidate = (folder.empty() ? std::string(".") : folder) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (end == entries.size()) break;
    start = end + 1;
  }
  return makeError(printableLine(name) + ": no such runner on PATH (name it with a folder, e.g. ./" +
                   printableLine(name) + ", for a file in the current folder)");
}

Result<std::string> runnerPath(const std::string& given) {
  if (!given.empty()) return findOnPath(given);
  if (const char* fromEnvironment = std::getenv(kRunnerEnvironment); fromEnvironment != nullptr && *fromEnvironment != 0)
    return findOnPath(fromEnvironment);
  return makeError(std::string("--runner needs a PATH (or set ") + kRunnerEnvironment + " to your executor_runner)");
}

Result<RunnerProgram> runnerProgramFile(const program::Program& program, const std::string& path) {
  RunnerProgram target{&program, path, "", fs::path(path).filename().string()};
  if (program.external_data.size() > 1)
    return makeError(path + ": the program uses " + std::to_string(program.external_data.size()) +
                     " .ptd files; executor_runner takes one --data_path");
  if (!program.external_data.empty()) target.data_path = program.external_data.front().path;
  return target;
}

namespace {
constexpr std::string_view kSourcePrefix = "ExecuTorch runner ", kSourceSuffix = ", host clock";
}

std::string runnerSource(const std::string& runner) {
  return std::string(kSourcePrefix) + runner + std::string(kSourceSuffix);
}

std::string runnerOfSource(const std::string& runtime) {
  if (runtime.size() <= kSourcePrefix.size() + kSourceSuffix.size() || !runtime.starts_with(kSourcePrefix) ||
      !runtime.ends_with(kSourceSuffix))
    return {};
  return runtime.substr(kSourcePrefix.size(), runtime.size() - kSourcePrefix.size() - kSourceSuffix.size());
}

std::vector<std::string> runnerContractViolations(const program::Program& program, const std::string& method) {
  const program::Method* m = program.findMethod(method);
  if (m == nullptr) return {};
  // Whatever the options were, a method input or output on a device is one
  // executor_runner cannot serve: it hands and writes host memory.
  return advise::deviceIoDuties(*m, true, true);
}

bool hasHostClockMarks(const exec::TransferProfile& profile) {
  return std::any_of(profile.copies.begin(), profile.copies.end(),
                     [](const exec::CopyProfile& c) { return !c.time_covers.empty(); });
}

void markHostClockCopies(exec::TransferProfile& profile, const program::Program& program) {
  const program::Method* m = program.findMethod(profile.method);
  if (m == nullptr) return;
  const auto flow = analysis::Dataflow::build(*m);
  const auto& values = program::items(m->values);
  auto onDevice = [&values](int32_t v) {
    const auto* t = v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
    return t != nullptr && !t->device().isCpu();
  };
  // Flat index of each copy → the device delegate whose queued work it waits for.
  std::map<size_t, size_t> waitsFor;
  constexpr size_t kNone = SIZE_MAX;
  size_t pending = kNone;  // the latest device delegate no copy has waited for yet
  for (const auto& f : flow.instructions()) {
    if (f.kind == program::InstructionKind::DelegateCall) {
      bool device = false;
      for (auto v : f.inputs) device = device || onDevice(v);
      for (auto v : f.outputs) device = device || onDevice(v);
      if (device) pending = f.flat_index;
    } else if (pending != kNone && std::any_of(profile.copies.begin(), profile.copies.end(),
                                      [&](const exec::CopyProfile& c) { return c.instruction == f.flat_index; })) {
      waitsFor[f.flat_index] = pending;
      pending = kNone;
    }
  }
  for (auto& c : profile.copies) {
    auto it = waitsFor.find(c.instruction);
    if (it == waitsFor.end()) continue;
    c.time_covers = "waits for delegate instruction " + std::to_string(it->second) +
                    ": a blocking cudaMemcpy starts after the GPU work the delegate left queued, so this time "
                    "includes that work, not only the copy";
    c.gbps = c.best_gbps = c.peak_share = 0;
    auto& totals = c.direction == program::CopyDirection::HostToDevice ? profile.host_to_device : profile.device_to_host;
    totals.gbps = totals.peak_share = 0;
  }
  for (auto& slice : profile.timeline)
    if (slice.track == exec::TimelineSlice::Track::HostToDevice || slice.track == exec::TimelineSlice::Track::DeviceToHost)
      if (waitsFor.contains(slice.instruction)) slice.name += " (includes the delegate's queued GPU work)";
  if (!waitsFor.empty())
    profile.notes.push_back(std::to_string(waitsFor.size()) +
                            " copy time(s) marked '*' include a device delegate's queued GPU work (executor_runner "
                            "has no caller stream: the delegate returns before its work is done and the next "
                            "blocking copy waits for it); no GB/s is given for them, and the transfer statistics and PRF003 leave them out");
}

std::vector<OutputDifference> compareOutputs(const program::Method& method, const RawOutputs& first,
                                             const RawOutputs& second) {
  std::vector<OutputDifference> out;
  const auto& outputs = program::items(method.outputs);
  const auto& values = program::items(method.values);
  for (size_t position = 0; position < std::max(first.size(), second.size()); ++position) {
    const auto* a = position < first.size() && first[position] ? &*first[position] : nullptr;
    const auto* b = position < second.size() && second[position] ? &*second[position] : nullptr;
    if (a == nullptr && b == nullptr) continue;
    OutputDifference d;
    d.position = position;
    if (a == nullptr || b == nullptr) {
      d.what = std::string("written by the ") + (a == nullptr ? "second" : "first") + " run only";
      out.push_back(d);
      continue;
    }
    if (*a == *b) continue;
    if (a->size() != b->size()) {
      d.what = "has " + std::to_string(a->size()) + " bytes in the first run, " + std::to_string(b->size()) + " in the second";
      out.push_back(d);
      continue;
    }
    const int32_t v = position < outputs.size() ? outputs[position] : -1;
    const auto* tensor = v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
    exec::HostTensor x, y;
    if (tensor != nullptr) x.dtype = y.dtype = tensor->scalar_type;
    x.bytes = *a;
    y.bytes = *b;
    const auto ex = tensor != nullptr ? exec::elementsOf(x) : std::vector<double>();
    const auto ey = tensor != nullptr ? exec::elementsOf(y) : std::vector<double>();
    if (ex.empty() || ex.size() != ey.size()) {
      size_t byte = 0;
      while (byte < a->size() && (*a)[byte] == (*b)[byte]) ++byte;
      d.what = "differs from byte " + std::to_string(byte) + " on (dtype not compared element-wise)";
      out.push_back(d);
      continue;
    }
    std::optional<size_t> firstAt;
    for (size_t k = 0; k < ex.size(); ++k) {
      if (std::memcmp(a->data() + k * (a->size() / ex.size()), b->data() + k * (b->size() / ex.size()), a->size() / ex.size()) == 0)
        continue;
      if (!firstAt) firstAt = k;
      ++d.differing;
      const double abs = std::fabs(ex[k] - ey[k]);
      d.max_abs_error = std::isnan(abs) ? d.max_abs_error : std::max(d.max_abs_error, abs);
      if (ey[k] != 0 && !std::isnan(abs)) d.max_rel_error = std::max(d.max_rel_error, abs / std::fabs(ey[k]));
    }
    char values_[96];
    std::snprintf(values_, sizeof values_, "%.9g vs %.9g", ex[*firstAt], ey[*firstAt]);
    d.what = "differs in " + std::to_string(d.differing) + " of " + std::to_string(ex.size()) + " elements, first at element " +
             std::to_string(*firstAt) + " (" + values_ + ")";
    out.push_back(d);
  }
  return out;
}

Result<RunnerResult> runWithRunner(const RunnerProgram& target, const RunnerOptions& options) {
  const program::Program& program = *target.program;
  const std::string name = !target.name.empty() ? target.name
                           : !target.path.empty() ? fs::path(target.path).filename().string()
                                                  : std::string("the program");
  const std::string where = options.runner + " on " + name + ": ";
  auto fail = [&where](const std::string& what) { return makeError(where + what); };

  if (auto file = checkRunnerFile(options.runner); !file) return file.error();

  const std::string method = options.method.empty() ? exec::defaultMethodName(program) : options.method;
  if (program.findMethod(method) == nullptr) return makeError(name + ": no method named '" + method + "'");
  if (auto duties = runnerContractViolations(program, method); !duties.empty()) {
    std::string list;
    for (const auto& d : duties) list += (list.empty() ? "" : "; ") + d;
    return fail("not run: method '" + method +
                "' was exported for a caller that keeps its IO on the device (" + list +
                "), but executor_runner hands host inputs and writes outputs as they lie, so it would read host memory "
                "as device memory; profile it with ptescope's own runtime, or re-export without the skip options");
  }

  auto folder = TemporaryFolder::create();
  if (!folder) return fail(folder.error().message);
  if (folder->path().find(',') != std::string::npos)
    return fail("the temporary folder " + folder->path() + " has a comma in its path, which --inputs cannot carry");

  auto inputs = inputBytes(program, method, options);
  if (!inputs) return inputs.error().message == kRunnerCancelled ? makeError(kRunnerCancelled) : fail(inputs.error().message);
  std::string inputList;
  for (size_t i = 0; i < inputs->size(); ++i) {
    const std::string path = folder->file("input-" + std::to_string(i) + ".bin");
    if (auto s = writeFileAtomically(path, (*inputs)[i]); !s) return fail(s.error().message);
    inputList += (i == 0 ? "" : ",") + path;
  }

  // The runner works in the private folder: every path it gets is absolute.
  auto absolute = [](const std::string& path) {
    std::error_code ignored;
    return path.empty() ? path : fs::absolute(path, ignored).string();
  };
  std::string modelPath = absolute(target.path), dataPath = absolute(target.data_path);
  if (modelPath.empty()) {
    auto written = synth::writeProgramAndData(program, folder->file("program.pte"));
    if (!written) return fail(written.error().message);
    modelPath = written->back();
    for (size_t i = 0; i + 1 < written->size(); ++i) {
      if (!dataPath.empty())
        return fail("the program has more than one .ptd; executor_runner takes one --data_path");
      dataPath = (*written)[i];
    }
  }

  const std::string trace = folder->file("trace.etdp"), outputBase = folder->file("output");
  std::vector<std::string> argv = {absolute(options.runner), "--model_path", modelPath, "--method_name", method,
                                   "--num_executions", std::to_string(std::max<size_t>(options.iterations, 1)),
                                   "--output_file", outputBase, "--etdump_path", trace};
  if (!dataPath.empty()) argv.insert(argv.end(), {"--data_path", dataPath});
  if (!inputList.empty()) argv.insert(argv.end(), {"--inputs", inputList});

  auto outcome = runChild(argv, folder.value(), options);
  const std::string log = readAtMost(folder->file("stderr.txt"), kKeptLogBytes, true);
  if (options.runner_log != nullptr) *options.runner_log = log;
  if (!outcome) return fail(outcome.error().message);
  if (outcome->cancelled) return makeError(kRunnerCancelled);
  if (outcome->timed_out || outcome->signal != 0 || outcome->exit_status != 0)
    return fail(failureText(outcome.value(), log, options));

  std::error_code error;
  if (!fs::exists(trace, error))
    return fail("the runner exited without writing an ETDump (--etdump_path); is it built with the event tracer?");
  auto dump = etdump::readEtdumpFile(trace);
  if (!dump) {
    std::string message = dump.error().message;
    if (auto at = message.find(trace); at != std::string::npos) message.replace(at, trace.size(), "its ETDump");
    return fail("the runner's ETDump cannot be read (" + message + ")");
  }
  etdump::AnalysisOptions analysisOptions;
  analysisOptions.methods = {method};
  auto analysis = etdump::analyzeEtdump(dump.value(), program, analysisOptions);
  if (!analysis) return fail("the runner's ETDump does not fit the program: " + analysis.error().message);
  const etdump::MethodStats* stats = analysis->find(method);
  if (stats == nullptr || stats->iterations == 0) return fail("the runner's ETDump holds no execution of '" + method + "'");

  RunnerResult result;
  result.trace_warning = analysis->warning();
  result.profile = etdump::toTransferProfile(*stats, program, name);
  result.profile.runtime = runnerSource(options.runner);
  result.profile.requested_iterations = std::max<size_t>(options.iterations, 1);
  markHostClockCopies(result.profile, program);
  result.runner_stdout = readAtMost(folder->file("stdout.txt"), kKeptLogBytes, false);

  const program::Method& m = *program.findMethod(method);
  for (size_t i = 0; i < program::items(m.outputs).size(); ++i) {
    const std::string path = outputBase + "-" + std::to_string(i) + ".bin";
    if (!fs::exists(path, error)) {
      result.outputs.emplace_back(std::nullopt);
      continue;
    }
    auto bytes = mapFile(path);
    if (!bytes) return fail(bytes.error().message);
    result.outputs.emplace_back(std::vector<uint8_t>(bytes->span().begin(), bytes->span().end()));
  }
  return result;
}

}  // namespace ptescope::runner

#include "layout/GraphvizLayout.h"

#include <fcntl.h>
#include <gvc.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "layout/GraphStyle.h"

namespace ptescope::layout {

namespace {

// ---- Graphviz access: one context, one caller at a time ----

std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// Messages Graphviz reports while we hold the mutex.
std::string& graphvizMessages() {
  static std::string messages;
  return messages;
}

int collectGraphvizMessage(char* message) {
  graphvizMessages() += message;
  return 0;
}

// Threads of this process (/proc/self/task); 0 when unknown.
size_t threadCount() {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return ec ? 0 : n;
}

// Created on first use, under the mutex; lives for the process.
GVC_t* graphvizContext() {
  static GVC_t* context = [] {
    const size_t threadsBefore = threadCount();
    agseterrf(collectGraphvizMessage);
    agseterr(AGERR);  // warnings (e.g. "node too small for label") are not errors here
    GVC_t* gvc = gvContext();
    // Graphviz loads its layout and render plugins (dlopen) on first use.
    // Layout children are forked from a process with other threads, where
    // dlopen may find the loader's lock taken: load them here, once, so
    // that children inherit them loaded.
    for (const char* engine : {"dot", "nop2"}) {
      Agraph_t* g = agmemread("digraph warm { a [pos=\"10,10\"]; b [pos=\"10,80\"]; a -> b; }");
      if (!g) continue;
      if (gvLayout(gvc, g, engine) == 0) {
        for (const char* format : {"svg", "png"}) {
          char* data = nullptr;
          unsigned int length = 0;
          if (gvRenderData(gvc, g, format, &data, &length) == 0 && data) gvFreeRenderData(data);
        }
        gvFreeLayout(gvc, g);
      }
      agclose(g);
    }
    // Pango initializes fontconfig and sorts fonts in threads of its own
    // that outlive the call: a layout child forked while one of them holds
    // fontconfig's lock waits for it forever (render hung that way under
    // load). Let them end before anything forks (at most two seconds).
    for (int wait = 0; wait < 200 && threadsBefore > 0 && threadCount() > threadsBefore; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    graphvizMessages().clear();
    return gvc;
  }();
  return context;
}

char* mutableText(const std::string& text) { return const_cast<char*>(text.c_str()); }

struct CGraph {
  Agraph_t* graph = nullptr;
  std::vector<Agnode_t*> nodes;
  std::vector<Agedge_t*> edges;
  std::vector<Agraph_t*> clusters;
  ~CGraph() {
    if (graph) agclose(graph);
  }
};

void setAll(void* object, const Attributes& attributes) {
  for (const auto& [key, value] : attributes) {
    const bool html = value.size() > 1 && value.front() == '<' && value.back() == '>';
    if (html && key == "label") {
      // An HTML label is set through agstrdup_html so dot parses it as markup.
      Agraph_t* root = agroot(object);
      char* markup = agstrdup_html(root, mutableText(value.substr(1, value.size() - 2)));
      agsafeset(object, mutableText(key), markup, mutableText(std::string()));
      agstrfree(root, markup);
    } else {
      agsafeset(object, mutableText(key), mutableText(value), mutableText(std::string()));
    }
  }
}

// Builds the cgraph graph; caller holds the mutex.
void buildCGraph(const GraphModel& model, const StyledGraph& style, CGraph& out) {
  out.graph = agopen(mutableText("ptescope"), Agdirected, nullptr);
  for (const auto& [key, value] : style.graph) agattr(out.graph, AGRAPH, mutableText(key), mutableText(""));
  setAll(out.graph, style.graph);
  for (const auto& [key, value] : style.nodeDefaults) agattr(out.graph, AGNODE, mutableText(key), mutableText(value));
  for (const auto& [key, value] : style.edgeDefaults) agattr(out.graph, AGEDGE, mutableText(key), mutableText(value));
  out.nodes.resize(model.nodes.size());
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const std::string name = "n" + std::to_string(i);
    out.nodes[i] = agnode(out.graph, mutableText(name), 1);
    setAll(out.nodes[i], style.nodes[i]);
  }
  std::vector<Agraph_t*> clusterGraphs(style.clusters.size(), nullptr);
  for (size_t c = 0; c < style.clusters.size(); ++c) {
    const auto& cluster = style.clusters[c];
    if (cluster.nodes.empty()) continue;
    Agraph_t* sub = agsubg(out.graph, mutableText(cluster.name), 1);
    setAll(sub, cluster.attributes);
    for (size_t n : cluster.nodes) agsubnode(sub, out.nodes[n], 1);
    out.clusters.push_back(sub);
    clusterGraphs[c] = sub;
  }
  for (size_t k = 0; k < style.chains.size(); ++k) {
    const auto& chain = style.chains[k];
    Agraph_t* parent = chain.cluster >= 0 && clusterGraphs[size_t(chain.cluster)] ? clusterGraphs[size_t(chain.cluster)] : out.graph;
    const std::string name = "order" + std::to_string(k);
    Agraph_t* row = agsubg(parent, mutableText(name), 1);
    agsafeset(row, mutableText("rank"), mutableText("same"), mutableText(""));
    for (size_t i = 0; i + 1 < chain.nodes.size(); ++i) {
      Agnode_t* a = agsubnode(row, out.nodes[chain.nodes[i]], 1);
      Agnode_t* b = agsubnode(row, out.nodes[chain.nodes[i + 1]], 1);
      const std::string edgeName = name + "_" + std::to_string(i);
      Agedge_t* e = agedge(row, a, b, mutableText(edgeName), 1);
      agsafeset(e, mutableText("style"), mutableText("invis"), mutableText(""));
    }
  }
  out.edges.resize(model.edges.size());
  for (size_t i = 0; i < model.edges.size(); ++i) {
    const std::string name = "e" + std::to_string(i);
    out.edges[i] = agedge(out.graph, out.nodes[model.edges[i].from], out.nodes[model.edges[i].to], mutableText(name), 1);
    setAll(out.edges[i], style.edges[i]);
  }
}

}  // namespace


namespace {

bool isCancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

using Clock = std::chrono::steady_clock;

// Reads the positions dot gave `cg` into `layout` (everything but the model).
void readPositions(const GraphModel& model, const CGraph& cg, GraphLayout& layout) {
  const boxf bb = GD_bb(cg.graph);
  const double top = bb.UR.y;
  const double left = bb.LL.x;
  auto toScene = [top, left](pointf p) { return PointF{p.x - left, top - p.y}; };
  layout.bounds = RectF{0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};

  layout.nodes.resize(model.nodes.size());
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    Agnode_t* n = cg.nodes[i];
    layout.nodes[i] = NodeGeometry{toScene(ND_coord(n)), ND_width(n) * 72.0, ND_height(n) * 72.0};
  }
  layout.edges.resize(model.edges.size());
  for (size_t i = 0; i < model.edges.size(); ++i) {
    Agedge_t* e = cg.edges[i];
    EdgeGeometry& geometry = layout.edges[i];
    if (const splines* spl = ED_spl(e); spl && spl->size > 0) {
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        // Consecutive pieces share their joining point.
        for (int p = (b == 0 ? 0 : 1); p < bz.size; ++p) geometry.path.push_back(toScene(bz.list[p]));
        if (b == spl->size - 1 && bz.eflag) geometry.arrow_tip = toScene(bz.ep);
      }
    }
    if (geometry.path.empty()) {
      // dot leaves an edge unrouted only in degenerate cases; a straight
      // line keeps the picture honest.
      const auto& a = layout.nodes[model.edges[i].from].center;
      const auto& b = layout.nodes[model.edges[i].to].center;
      geometry.path = {a, a, b, b};
    }
    if (const textlabel_t* label = ED_label(e); label && label->set) geometry.label_position = toScene(label->pos);
  }
  for (Agraph_t* sub : cg.clusters) {
    const std::string name = agnameof(sub);
    const size_t slot = std::stoul(name.substr(std::string("cluster_d").size()));
    const boxf cb = GD_bb(sub);
    const PointF topLeft = toScene(pointf{cb.LL.x, cb.UR.y});
    RegionGeometry region;
    region.device = model.devices[slot];
    region.title = region.device.str();
    region.rect = RectF{topLeft.x, topLeft.y, cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y};
    layout.regions.push_back(region);
  }
}

// One dot run in this process; the caller holds the Graphviz mutex.
Status dotHere(const GraphModel& model, const LayoutOptions& options, GraphLayout& layout) {
  const StyledGraph style = styleGraph(model, options);
  GVC_t* gvc = graphvizContext();
  graphvizMessages().clear();
  CGraph cg;
  buildCGraph(model, style, cg);
  const auto start = Clock::now();
  if (gvLayout(gvc, cg.graph, "dot") != 0)
    return makeError("Graphviz could not lay out method '" + model.method_name + "': " +
                     (graphvizMessages().empty() ? std::string("unknown error") : graphvizMessages()));
  layout.seconds += std::chrono::duration<double>(Clock::now() - start).count();
  layout.edge_labels_placed = labelsInLayout(model, options);
  readPositions(model, cg, layout);
  gvFreeLayout(gvc, cg.graph);
  return Ok{};
}

// ---- dot in a child process ----
//
// libgvc cannot be interrupted and keeps global state, so every dot run
// happens in a forked child: the parent polls the pipe, the cancel flag and
// the deadline every few milliseconds and kills the child when either says
// stop. Children run side by side (two layouts, or two stripes of one, on
// two cores). The parent forks while holding the Graphviz mutex, so that no
// thread of its own is inside libgvc at that moment; the child then uses the
// context it inherited and leaves with _exit.

// What a child sends: a status word, then doubles (ok) or message bytes.
void putDouble(std::string& out, double d) { out.append(reinterpret_cast<const char*>(&d), sizeof d); }

std::string encodeLayout(const GraphLayout& layout) {
  std::string out;
  putDouble(out, layout.seconds);
  putDouble(out, layout.edge_labels_placed ? 1 : 0);
  putDouble(out, layout.bounds.width);
  putDouble(out, layout.bounds.height);
  for (const auto& n : layout.nodes) {
    putDouble(out, n.center.x);
    putDouble(out, n.center.y);
    putDouble(out, n.width);
    putDouble(out, n.height);
  }
  for (const auto& e : layout.edges) {
    putDouble(out, double(e.path.size()));
    for (const auto& p : e.path) {
      putDouble(out, p.x);
      putDouble(out, p.y);
    }
    for (const auto& p : {e.arrow_tip, e.label_position}) {
      putDouble(out, p ? 1 : 0);
      putDouble(out, p ? p->x : 0);
      putDouble(out, p ? p->y : 0);
    }
  }
  putDouble(out, double(layout.regions.size()));
  for (const auto& r : layout.regions) {
    putDouble(out, double(r.device.index));
    putDouble(out, double(static_cast<int>(r.device.type)));
    putDouble(out, r.rect.x);
    putDouble(out, r.rect.y);
    putDouble(out, r.rect.width);
    putDouble(out, r.rect.height);
  }
  return out;
}

Status decodeLayout(const GraphModel& model, const std::string& bytes, GraphLayout& layout) {
  size_t at = 0;
  bool ok = true;
  auto get = [&]() -> double {
    if (at + sizeof(double) > bytes.size()) {
      ok = false;
      return 0;
    }
    double d;
    std::memcpy(&d, bytes.data() + at, sizeof d);
    at += sizeof d;
    return d;
  };
  layout.seconds += get();
  layout.edge_labels_placed = get() != 0;
  layout.bounds = RectF{0, 0, get(), get()};
  layout.nodes.resize(model.nodes.size());
  for (auto& n : layout.nodes) {
    n.center.x = get();
    n.center.y = get();
    n.width = get();
    n.height = get();
  }
  layout.edges.resize(model.edges.size());
  for (auto& e : layout.edges) {
    const double count = get();
    if (!ok || count < 0 || count > double(bytes.size())) return makeError("a layout process sent a damaged result");
    e.path.resize(size_t(count));
    for (auto& p : e.path) p = PointF{get(), get()};
    for (auto* target : {&e.arrow_tip, &e.label_position}) {
      const bool present = get() != 0;
      const PointF p{get(), get()};
      if (present) *target = p;
    }
  }
  const double regions = get();
  if (!ok || regions < 0 || regions > double(bytes.size())) return makeError("a layout process sent a damaged result");
  for (size_t r = 0; r < size_t(regions); ++r) {
    RegionGeometry region;
    region.device.index = static_cast<decltype(region.device.index)>(get());
    region.device.type = static_cast<program::DeviceType>(int(get()));
    region.title = region.device.str();
    region.rect = RectF{get(), get(), get(), get()};
    layout.regions.push_back(region);
  }
  if (!ok || at != bytes.size()) return makeError("a layout process sent a damaged result");
  return Ok{};
}

bool writeAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// One piece of work for a child: lay out `model` (positions back), or lay
// it out and render it (`render_format` non-empty; rendered bytes back).
struct DotJob {
  const GraphModel* model = nullptr;
  std::string render_format;
  // Rendering a graph laid out already: its pinned DOT text (report::toPinnedDot).
  std::string pinned_dot;
  // Results.
  bool done = false;
  GraphLayout layout;
  std::string rendered;
  std::optional<Error> error;
};

struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t job = 0;
  std::string bytes;
  // Progress: the CPU time it has used (clock ticks; -1 unknown) and when
  // it last moved or wrote.
  long long cpu = -1;
  Clock::time_point movedAt = Clock::now();
};

// User + system CPU time of a process in clock ticks (/proc/PID/stat
// fields 14 and 15); -1 when it cannot be read.
long long cpuTicksOf(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return -1;
  char line[1024];
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  if (!read) return -1;
  const char* after = std::strrchr(line, ')');  // the name may hold spaces
  if (after == nullptr) return -1;
  char state = 0;
  long long skip = 0, utime = 0, stime = 0;
  // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  if (std::sscanf(after + 1, " %c %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &state, &skip, &skip,
                  &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &utime, &stime) != 13)
    return -1;
  return utime + stime;
}

// A layout child that used no CPU and wrote nothing for this long is stuck
// (a child forked while another thread held a lock it then needs waits
// forever: `render` hung in a loaded test run) and its job runs in this
// process instead. PTESCOPE_LAYOUT_STALL_SECONDS sets it (tests).
Clock::duration stallLimit() {
  double seconds = 20;
  if (const char* text = std::getenv("PTESCOPE_LAYOUT_STALL_SECONDS"); text != nullptr && std::atof(text) > 0)
    seconds = std::atof(text);
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Lays out (or takes the pinned positions of) and renders; the caller
// holds the Graphviz mutex or is a layout child.
Result<std::string> renderHere(const DotJob& job, const LayoutOptions& options) {
  const GraphModel& model = *job.model;
  GVC_t* gvc = graphvizContext();
  graphvizMessages().clear();
  CGraph cg;
  const char* engine = "dot";
  if (job.pinned_dot.empty()) {
    buildCGraph(model, styleGraph(model, options), cg);
  } else {
    cg.graph = agmemread(job.pinned_dot.c_str());
    engine = "nop2";
    if (!cg.graph) return makeError("Graphviz could not read the laid-out graph of method '" + model.method_name + "'");
  }
  if (gvLayout(gvc, cg.graph, engine) != 0)
    return makeError("Graphviz could not lay out method '" + model.method_name + "': " + graphvizMessages());
  char* data = nullptr;
  unsigned int length = 0;
  const int status = gvRenderData(gvc, cg.graph, job.render_format.c_str(), &data, &length);
  std::string bytes;
  if (status == 0 && data) bytes.assign(data, length);
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, cg.graph);
  if (status != 0 || bytes.empty())
    return makeError("Graphviz cannot write " + job.render_format + " here (is its " + job.render_format +
                     " renderer plugin installed?)" + (graphvizMessages().empty() ? std::string() : ": " + graphvizMessages()));
  return bytes;
}

void childMain(const DotJob& job, const LayoutOptions& options, int fd) {
  std::string payload;
  uint32_t status = 0;
  if (job.render_format.empty()) {
    GraphLayout layout;
    auto placed = dotHere(*job.model, options, layout);
    if (placed) payload = encodeLayout(layout);
    else {
      status = 1;
      payload = placed.error().message;
    }
  } else {
    auto rendered = renderHere(job, options);
    if (rendered) payload = std::move(rendered.value());
    else {
      status = 1;
      payload = rendered.error().message;
    }
  }
  std::string out(reinterpret_cast<const char*>(&status), sizeof status);
  out += payload;
  ::_exit(writeAll(fd, out) ? 0 : 3);
}

bool startChild(std::vector<DotJob>& jobs, size_t index, const LayoutOptions& options, Child& child) {
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) return false;
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(graphvizMutex());
    graphvizContext();  // created (plugins loaded) before the fork, inherited by the child
    pid = ::fork();
    if (pid == 0) {
      ::close(pipeFds[0]);
      // A test stands in for a child stuck on a lock.
      if (std::getenv("PTESCOPE_TEST_STUCK_LAYOUT_CHILD") != nullptr)
        for (;;) ::pause();
      childMain(jobs[index], options, pipeFds[1]);
    }
  }
  ::close(pipeFds[1]);
  if (pid < 0) {
    ::close(pipeFds[0]);
    return false;
  }
  ::fcntl(pipeFds[0], F_SETFL, ::fcntl(pipeFds[0], F_GETFL) | O_NONBLOCK);
  child = Child{pid, pipeFds[0], index, {}};
  return true;
}

void stopChild(Child& child) {
  ::kill(child.pid, SIGKILL);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(child.fd);
  child.fd = -1;
}

// The child ended its output: collect its status and decode.
void finishChild(std::vector<DotJob>& jobs, Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(child.fd);
  child.fd = -1;
  DotJob& job = jobs[child.job];
  job.done = true;
  uint32_t word = 2;
  if (child.bytes.size() >= sizeof word) std::memcpy(&word, child.bytes.data(), sizeof word);
  const std::string payload = child.bytes.size() >= sizeof word ? child.bytes.substr(sizeof word) : std::string();
  const std::string what = "method '" + job.model->method_name + "'";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || word > 1) {
    job.error = makeError("Graphviz stopped unexpectedly while laying out " + what +
                          (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : std::string()));
  } else if (word == 1) {
    job.error = makeError(payload);
  } else if (job.render_format.empty()) {
    if (auto decoded = decodeLayout(*job.model, payload, job.layout); !decoded) job.error = decoded.error();
  } else {
    job.rendered = payload;
  }
}

enum class RunEnd { Finished, Cancelled, OutOfTime };

// Runs the jobs in children, up to `parallel` at once, in order. Stops (and
// kills what runs) when `cancel` becomes true or `deadline` passes; jobs not
// done then stay !done. `onDone` is called after each job, in the caller's
// thread. When a child cannot be started the job runs in this process.
RunEnd runJobs(std::vector<DotJob>& jobs, const LayoutOptions& options, const std::atomic<bool>* cancel,
               std::optional<Clock::time_point> deadline, const std::function<void(size_t)>& onDone) {
  const size_t parallel = std::max<size_t>(1, options.parallel_layouts);
  std::vector<Child> running;
  size_t next = 0, finished = 0;
  auto stopAll = [&] {
    for (auto& c : running) stopChild(c);
    running.clear();
  };
  const Clock::duration stall = stallLimit();
  auto runHere = [&](size_t index) {
    DotJob& job = jobs[index];
    std::lock_guard<std::mutex> lock(graphvizMutex());
    if (job.render_format.empty()) {
      if (auto placed = dotHere(*job.model, options, job.layout); !placed) job.error = placed.error();
    } else if (auto rendered = renderHere(job, options)) {
      job.rendered = std::move(rendered.value());
    } else {
      job.error = rendered.error();
    }
    job.done = true;
    if (onDone) onDone(++finished);
  };
  while (next < jobs.size() || !running.empty()) {
    if (isCancelled(cancel)) {
      stopAll();
      return RunEnd::Cancelled;
    }
    if (deadline && Clock::now() >= *deadline) {
      stopAll();
      return RunEnd::OutOfTime;
    }
    while (running.size() < parallel && next < jobs.size()) {
      Child child;
      if (startChild(jobs, next, options, child)) running.push_back(std::move(child));
      else runHere(next);
      ++next;
    }
    if (running.empty()) continue;
    std::vector<pollfd> fds;
    for (const auto& c : running) fds.push_back(pollfd{c.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 20);
    for (size_t k = 0; k < running.size();) {
      Child& c = running[k];
      bool ended = false;
      char buffer[65536];
      for (;;) {
        const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
        if (n > 0) {
          c.bytes.append(buffer, size_t(n));
          c.movedAt = Clock::now();
          continue;
        }
        if (n == 0) ended = true;
        else if (errno == EINTR) continue;
        else if (errno != EAGAIN && errno != EWOULDBLOCK) ended = true;
        break;
      }
      if (ended) {
        finishChild(jobs, c);
        running.erase(running.begin() + long(k));
        if (onDone) onDone(++finished);
        continue;
      }
      // Stuck: no CPU used and nothing written for `stall`.
      const auto now = Clock::now();
      if (now - c.movedAt >= std::chrono::seconds(1)) {
        const long long cpu = cpuTicksOf(c.pid);
        if (cpu != c.cpu) {
          c.cpu = cpu;
          c.movedAt = now;
        }
      }
      if (now - c.movedAt >= stall) {
        const size_t index = c.job;
        stopChild(c);
        running.erase(running.begin() + long(k));
        runHere(index);
        continue;
      }
      ++k;
    }
  }
  return RunEnd::Finished;
}

std::optional<Clock::time_point> deadlineOf(const LayoutOptions& options, Clock::time_point start) {
  if (options.time_budget_seconds <= 0) return std::nullopt;
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.time_budget_seconds));
}

// The model cut into parts of the given nodes, each with the edges inside
// it (their indices in `partEdges`), in one pass over the edges. Stops
// early (false) when cancelled.
bool splitModel(const GraphModel& model, const std::vector<std::vector<size_t>>& stripes, std::vector<GraphModel>& parts,
                std::vector<std::vector<size_t>>& partEdges, const std::atomic<bool>* cancel) {
  std::vector<size_t> partOf(model.nodes.size(), 0), local(model.nodes.size(), 0);
  for (size_t s = 0; s < stripes.size(); ++s) {
    if (isCancelled(cancel)) return false;
    GraphModel& sub = parts[s];
    sub.method_name = model.method_name + (s > 0 ? " (continued)" : "");
    sub.instruction_count = model.instruction_count;
    std::set<program::Device> devices;
    for (size_t n : stripes[s]) {
      partOf[n] = s;
      local[n] = sub.nodes.size();
      sub.nodes.push_back(model.nodes[n]);
      if (model.nodes[n].has_device) devices.insert(model.nodes[n].device);
    }
    sub.devices.assign(devices.begin(), devices.end());
  }
  for (size_t e = 0; e < model.edges.size(); ++e) {
    if ((e & 0xfff) == 0 && isCancelled(cancel)) return false;
    const auto& edge = model.edges[e];
    const size_t s = partOf[edge.from];
    if (partOf[edge.to] != s) continue;
    GraphEdge copy = edge;
    copy.from = local[edge.from];
    copy.to = local[edge.to];
    parts[s].edges.push_back(std::move(copy));
    partEdges[s].push_back(e);
  }
  return true;
}

// Edges between parts placed separately: plain curves from the source's
// bottom to the target's top.
void connectUnplaced(const GraphModel& model, const std::vector<bool>& placedEdge, GraphLayout& layout) {
  for (size_t e = 0; e < model.edges.size(); ++e) {
    if (placedEdge[e]) continue;
    const auto& a = layout.nodes[model.edges[e].from];
    const auto& b = layout.nodes[model.edges[e].to];
    const PointF start{a.center.x, a.center.y + a.height / 2};
    const PointF tip{b.center.x, b.center.y - b.height / 2};
    const PointF end{tip.x, tip.y - 6};
    const double bend = std::max(24.0, std::abs(end.y - start.y) / 3);
    layout.edges[e].path = {start, PointF{start.x, start.y + bend}, PointF{end.x, end.y - bend}, end};
    layout.edges[e].arrow_tip = tip;
    layout.edges[e].label_position.reset();
  }
}

}  // namespace

GraphLayout quickLayout(const GraphModel& model) {
  // Longest-path layering in program order: a node's row is one below the
  // lowest row of the nodes it reads (parallel work shares a row); rows are
  // filled left to right. Linear in the graph, no Graphviz.
  GraphLayout layout;
  const size_t n = model.nodes.size();
  std::vector<size_t> byOrder(n);
  for (size_t i = 0; i < n; ++i) byOrder[i] = i;
  std::stable_sort(byOrder.begin(), byOrder.end(),
                   [&model](size_t a, size_t b) { return model.nodes[a].order < model.nodes[b].order; });
  std::vector<size_t> position(n);
  for (size_t k = 0; k < n; ++k) position[byOrder[k]] = k;
  std::vector<std::vector<size_t>> readsFrom(n);
  std::vector<long> readerOfStub(n, -1);
  for (const auto& e : model.edges) {
    // What reads through a stub still comes after the stub's producer.
    const auto& from = model.nodes[e.from];
    if (from.kind == NodeKind::Stub) readerOfStub[e.from] = long(e.to);
    const size_t source = from.stub_source && *from.stub_source < n ? *from.stub_source : e.from;
    if (source != e.from || position[e.from] < position[e.to])
      if (position[source] < position[e.to]) readsFrom[e.to].push_back(source);
  }
  std::vector<size_t> row(n, 0);
  size_t rows = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t v = byOrder[k];
    for (size_t u : readsFrom[v]) row[v] = std::max(row[v], row[u] + 1);
    rows = std::max(rows, row[v] + 1);
  }
  // Stubs do not push their reader down: each sits on the row above it.
  for (size_t v = 0; v < n; ++v)
    if (readerOfStub[v] >= 0) row[v] = row[size_t(readerOfStub[v])] > 0 ? row[size_t(readerOfStub[v])] - 1 : 0;
  std::vector<std::vector<size_t>> members(rows);
  for (size_t k = 0; k < n; ++k) members[row[byOrder[k]]].push_back(byOrder[k]);
  constexpr double kGapX = 24, kGapY = 40, kMargin = 20;
  layout.nodes.resize(n);
  double y = kMargin, width = 0;
  for (const auto& list : members) {
    double x = kMargin, height = 0;
    for (size_t v : list) {
      const NodeSize size = nodeSize(model.nodes[v]);
      layout.nodes[v] = NodeGeometry{PointF{x + size.width / 2, 0}, size.width, size.height};
      x += size.width + kGapX;
      height = std::max(height, size.height);
    }
    for (size_t v : list) layout.nodes[v].center.y = y + height / 2;
    width = std::max(width, x - kGapX + kMargin);
    y += height + kGapY;
  }
  layout.bounds = RectF{0, 0, std::max(width, 2 * kMargin), std::max(y - kGapY + kMargin, 2 * kMargin)};
  layout.edges.resize(model.edges.size());
  connectUnplaced(model, std::vector<bool>(model.edges.size(), false), layout);
  layout.model = model;
  layout.quick = true;
  return layout;
}

namespace {

// Stripes along program order for big graphs: dot's crossing reduction
// and positioning grow much faster than the graph (8,500 nodes take about
// 40 s in one run, 850 nodes 0.2 s), so each stripe of about stripe_nodes
// nodes is laid out on its own (two at a time) and the stripes are
// stacked top to bottom. Edges between stripes are drawn as plain curves.
// One stripe of every node for a graph of stripe_above nodes or fewer.
std::vector<std::vector<size_t>> stripesOf(const GraphModel& model, const LayoutOptions& options) {
  std::vector<std::vector<size_t>> stripes(1);
  if (model.nodes.size() > options.stripe_above) {
    std::vector<size_t> byOrder(model.nodes.size());
    for (size_t i = 0; i < byOrder.size(); ++i) byOrder[i] = i;
    std::stable_sort(byOrder.begin(), byOrder.end(),
                     [&model](size_t a, size_t b) { return model.nodes[a].order < model.nodes[b].order; });
    for (size_t k = 0; k < byOrder.size(); ++k) {
      auto& current = stripes.back();
      // Cut only where the order changes, so that a constant or a stub
      // stays with the instruction that reads it.
      if (current.size() >= options.stripe_nodes && model.nodes[byOrder[k]].order != model.nodes[current.back()].order)
        stripes.emplace_back();
      stripes.back().push_back(byOrder[k]);
    }
  } else {
    stripes.front().resize(model.nodes.size());
    for (size_t i = 0; i < model.nodes.size(); ++i) stripes.front()[i] = i;
  }
  return stripes;
}

// The stripes' layouts stacked top to bottom into one (a stripe the budget
// did not reach gets quickLayout() positions); the number of such stripes.
size_t stackStripes(const GraphModel& model, const std::vector<std::vector<size_t>>& stripes,
                    const std::vector<GraphModel>& parts, const std::vector<std::vector<size_t>>& partEdges,
                    std::vector<DotJob>& jobs, GraphLayout& layout) {
  size_t quickParts = 0;
  layout.nodes.assign(model.nodes.size(), NodeGeometry{});
  layout.edges.assign(model.edges.size(), EdgeGeometry{});
  std::vector<bool> placedEdge(model.edges.size(), false);
  constexpr double kStripeGap = 36;
  double y = 0, width = 0;
  bool allLabels = true;
  for (size_t s = 0; s < stripes.size(); ++s) {
    GraphLayout part;
    if (jobs[s].done) {
      part = std::move(jobs[s].layout);
    } else {
      part = quickLayout(parts[s]);  // the budget ran out before this stripe
      ++quickParts;
    }
    layout.seconds += part.seconds;
    allLabels = allLabels && part.edge_labels_placed;
    auto shift = [y](PointF p) { return PointF{p.x, p.y + y}; };
    for (size_t k = 0; k < stripes[s].size(); ++k) {
      NodeGeometry g = part.nodes[k];
      g.center = shift(g.center);
      layout.nodes[stripes[s][k]] = g;
    }
    for (size_t k = 0; k < partEdges[s].size(); ++k) {
      EdgeGeometry g = part.edges[k];
      for (auto& p : g.path) p = shift(p);
      if (g.arrow_tip) g.arrow_tip = shift(*g.arrow_tip);
      if (g.label_position) g.label_position = shift(*g.label_position);
      layout.edges[partEdges[s][k]] = std::move(g);
      placedEdge[partEdges[s][k]] = true;
    }
    for (auto region : part.regions) {
      region.rect.y += y;
      layout.regions.push_back(region);
    }
    width = std::max(width, part.bounds.width);
    y += part.bounds.height + kStripeGap;
  }
  layout.bounds = RectF{0, 0, width, std::max(0.0, y - kStripeGap)};
  layout.edge_labels_placed = allLabels;
  connectUnplaced(model, placedEdge, layout);
  return quickParts;
}

}  // namespace

Result<GraphLayout> layoutGraph(GraphModel model, const LayoutOptions& options, const std::atomic<bool>* cancel,
                                const ProgressCallback& progress) {
  if (isCancelled(cancel)) return makeError(std::string(kLayoutCancelled));
  const auto start = Clock::now();
  const auto deadline = deadlineOf(options, start);
  auto report = [&](double fraction, const std::string& phase) {
    if (progress) progress(fraction, phase);
  };

  const std::vector<std::vector<size_t>> stripes = stripesOf(model, options);
  std::vector<GraphModel> parts(stripes.size());
  std::vector<std::vector<size_t>> partEdges(stripes.size());
  if (stripes.size() == 1) {
    for (size_t e = 0; e < model.edges.size(); ++e) partEdges[0].push_back(e);
  } else if (!splitModel(model, stripes, parts, partEdges, cancel)) {
    return makeError(std::string(kLayoutCancelled));
  }
  std::vector<DotJob> jobs(stripes.size());
  for (size_t s = 0; s < stripes.size(); ++s) jobs[s].model = stripes.size() == 1 ? &model : &parts[s];

  const std::string what = stripes.size() == 1
                               ? "Graphviz dot: placing " + std::to_string(model.nodes.size()) + " nodes and routing " +
                                     std::to_string(model.edges.size()) + " edges"
                               : "Graphviz dot: " + std::to_string(stripes.size()) + " stripes (" +
                                     std::to_string(model.nodes.size()) + " nodes in all)";
  report(0.05, what);
  const RunEnd end = runJobs(jobs, options, cancel, deadline, [&](size_t done) {
    report(0.05 + 0.95 * double(done) / double(jobs.size()),
           stripes.size() == 1 ? what : "Graphviz dot: stripe " + std::to_string(done) + " of " + std::to_string(jobs.size()) +
                                            " (" + std::to_string(model.nodes.size()) + " nodes in all)");
  });
  if (end == RunEnd::Cancelled) return makeError(std::string(kLayoutCancelled));
  for (const auto& job : jobs)
    if (job.error) return *job.error;

  GraphLayout layout;
  size_t quickParts = 0;
  if (stripes.size() == 1) {
    if (jobs[0].done) {
      layout = std::move(jobs[0].layout);
    } else {
      layout = quickLayout(model);
      quickParts = 1;
    }
  } else {
    quickParts = stackStripes(model, stripes, parts, partEdges, jobs, layout);
  }
  layout.quick = quickParts > 0;
  if (quickParts > 0)
    layout.note = "Graphviz ran past the " + std::to_string(int(std::lround(options.time_budget_seconds))) +
                  " s budget: " + (stripes.size() == 1 ? std::string("the graph") : std::to_string(quickParts) + " of " +
                                                                                    std::to_string(stripes.size()) + " stripes") +
                  " drawn in a quick row layout";
  layout.model = std::move(model);
  report(1.0, "done");
  (void)end;
  return layout;
}


Result<std::string> drawGraph(const GraphModel& model, std::string_view format, std::string pinnedDot,
                              const LayoutOptions& options) {
  std::vector<DotJob> jobs(1);
  jobs[0].model = &model;
  jobs[0].render_format = std::string(format);
  jobs[0].pinned_dot = std::move(pinnedDot);
  LayoutOptions once = options;
  once.parallel_layouts = 1;
  const RunEnd end = runJobs(jobs, once, nullptr, deadlineOf(options, Clock::now()), {});
  if (end == RunEnd::OutOfTime)
    return makeError("Graphviz did not finish drawing method '" + model.method_name + "' within the " +
                     std::to_string(int(std::lround(options.time_budget_seconds))) + " s budget");
  if (jobs[0].error) return *jobs[0].error;
  return std::move(jobs[0].rendered);
}

}  // namespace ptescope::layout

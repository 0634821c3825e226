// The real CudaRuntime in process, against the cudart stand-in
// (tests/cudart-standin, through LD_LIBRARY_PATH; CTest sets it with 4
// devices and the pcie-gen5-x16 link): on the demo, the llm shape and the
// 4-GPU pipeline shape it plans the same buffers on the same devices as the
// host runtime, moves the same copies, gives bit-identical outputs, frees
// every byte, and its copy times are the link's; the stand-in itself
// refuses wrong-side pointers and reports an event read before a
// synchronisation, so a missing one in CudaRuntime would fail here.
#include <QtTest>

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstring>

#include "cost/CopyCost.h"
#include "cost/LinkProfile.h"
#include "exec/CudaRuntime.h"
#include "exec/HostRuntime.h"
#include "exec/Profiler.h"
#include "exec/RunOnce.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "synth/Shapes.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {

using LiveBytes = unsigned long long (*)(int);

// The stand-in's own query; null under the toolkit's libcudart.
LiveBytes standinLiveBytes() { return reinterpret_cast<LiveBytes>(dlsym(RTLD_DEFAULT, "ptescope_standin_live_bytes")); }

program::Program withPasses(Result<synth::SynthesizedProgram> synthesized) {
  if (!synthesized) return {};
  auto program = synth::applyDevicePasses(synthesized.value());
  return program ? std::move(program.value()) : program::Program{};
}

program::Program shape(const char* name, size_t layers) {
  auto built = synth::shapeProgram(name, layers);
  if (!built) return {};
  synth::SynthesizedProgram synthesized;
  synthesized.program = std::move(built.value());
  return withPasses(std::move(synthesized));
}

struct Case {
  const char* name;
  program::Program program;
};

std::vector<Case> programs() {
  std::vector<Case> cases;
  cases.push_back({"demo", withPasses(synth::synthesizeDemo())});
  cases.push_back({"llm", shape("llm", 2)});
  cases.push_back({"pipeline", shape("pipeline", 4)});
  return cases;
}

std::map<std::string, uint64_t> hostRuntimeDeviceBytes(const HostRuntime& runtime) {
  std::map<std::string, uint64_t> bytes;
  for (const auto& a : runtime.liveAllocations())
    if (a.place.onDevice()) bytes[a.place.device.str()] += a.bytes;
  return bytes;
}

}  // namespace

class ExecStandinTest : public QObject {
  Q_OBJECT
  std::unique_ptr<CudaRuntime> cuda_;
  LiveBytes live_ = nullptr;

  void expectNothingLive() {
    for (int d = -1; d < 4; ++d) QCOMPARE(live_(d), 0ull);
  }

 private slots:
  void initTestCase() {
    live_ = standinLiveBytes();
    QVERIFY2(live_ != nullptr, "libcudart is not the stand-in: run through CTest (LD_LIBRARY_PATH)");
    auto created = CudaRuntime::create();
    QVERIFY2(created.ok(), created ? "" : created.error().message.c_str());
    cuda_ = std::move(created.value());
  }

  void theRuntimeSaysStandIn() {
    QVERIFY2(cuda_->name().find("stand-in") != std::string::npos, cuda_->name().c_str());
    QCOMPARE(cuda_->deviceCount(), 4);
    QCOMPARE(cuda_->availableMemory("cuda:3"), uint64_t(80) << 30);
    QVERIFY(!cuda_->checkDevice(program::Device{program::DeviceType::Cuda, 4}).ok());
  }

  void buffersAndOutputsMatchTheHostRuntime() {
    for (auto& [name, program] : programs()) {
      QVERIFY2(!program.methods().empty(), name);
      HostRuntime host;
      {
        auto onHost = Executor::create(program, "forward", host, {});
        auto onCuda = Executor::create(program, "forward", *cuda_, {});
        QVERIFY2(onHost.ok() && onCuda.ok(), onCuda ? name : onCuda.error().message.c_str());
        const auto& a = onHost.value()->buffers();
        const auto& b = onCuda.value()->buffers();
        QCOMPARE(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          QCOMPARE(a[i].size, b[i].size);
          QCOMPARE(a[i].place.str(), b[i].place.str());
        }
        // What each device holds: the host runtime's record against cudaMalloc's.
        const auto expected = hostRuntimeDeviceBytes(host);
        QVERIFY2(!expected.empty(), name);
        for (int d = 0; d < 4; ++d) {
          const std::string device = "cuda:" + std::to_string(d);
          const uint64_t want = expected.count(device) ? expected.at(device) : 0;
          QVERIFY2(live_(d) == want, (std::string(name) + " " + device).c_str());
        }
        if (std::string(name) == "pipeline")
          for (int d = 0; d < 4; ++d) QVERIFY2(live_(d) > 0, "the pipeline shape plans buffers on all four devices");
      }
      expectNothingLive();

      for (auto kind : {HostMemoryKind::Pageable, HostMemoryKind::Pinned}) {
        RunOnceOptions options;
        options.host_memory = kind;
        auto x = runMethodOnce(program, host, options);
        auto y = runMethodOnce(program, *cuda_, options);
        QVERIFY2(x.ok() && y.ok(), y ? name : y.error().message.c_str());
        QVERIFY(!y->emulated);
        QCOMPARE(x->outputs.size(), y->outputs.size());
        QVERIFY(!x->outputs.empty());
        for (size_t i = 0; i < x->outputs.size(); ++i) {
          QVERIFY(x->outputs[i].tensor && y->outputs[i].tensor);
          QVERIFY2(x->outputs[i].tensor->bytes == y->outputs[i].tensor->bytes, name);
        }
        expectNothingLive();
      }
    }
  }

  void profilesMatchAndCopyTimesAreTheLinks() {
    auto link = cost::readLinkProfileFile(qEnvironmentVariable("PTESCOPE_STANDIN_LINK").toStdString());
    QVERIFY2(link.ok(), link ? "" : link.error().message.c_str());
    for (auto& [name, program] : programs()) {
      std::map<HostMemoryKind, double> copySeconds;
      for (auto kind : {HostMemoryKind::Pageable, HostMemoryKind::Pinned}) {
        ProfileOptions options;
        options.iterations = 2;
        options.warmup = 1;
        options.host_memory = kind;
        options.peak_probe_bytes = 16 << 20;
        HostRuntime host;
        auto a = profileMethod(program, host, options);
        auto b = profileMethod(program, *cuda_, options);
        QVERIFY2(a.ok() && b.ok(), b ? name : b.error().message.c_str());
        QVERIFY(b->runtime.find("stand-in") != std::string::npos);
        QVERIFY(!b->partial());
        QCOMPARE(b->iterations, size_t(2));
        QVERIFY2(!b->copies.empty(), name);
        QCOMPARE(a->copies.size(), b->copies.size());
        auto predicted = cost::predictProgram(program, "forward", link.value(), kind);
        QVERIFY2(predicted.ok(), predicted ? "" : predicted.error().message.c_str());
        QCOMPARE(predicted->copies.size(), b->copies.size());
        for (size_t i = 0; i < a->copies.size(); ++i) {
          const auto &x = a->copies[i], &y = b->copies[i];
          QCOMPARE(x.instruction, y.instruction);
          QCOMPARE(x.direction, y.direction);
          QCOMPARE(x.bytes, y.bytes);
          QCOMPARE(x.device, y.device);
          QCOMPARE(y.host_memory, kind);
          QCOMPARE(x.host_memory, y.host_memory);
          QCOMPARE(x.executions_per_iteration, y.executions_per_iteration);
          QCOMPARE(y.samples.size(), x.samples.size());
          // The virtual clock advanced by the link's time for this copy.
          QVERIFY2(std::abs(y.seconds.median - predicted->copies[i].seconds) <= 1e-6 * predicted->copies[i].seconds + 1e-9,
                   (std::string(name) + " copy " + std::to_string(y.instruction)).c_str());
        }
        QCOMPARE(a->host_to_device.bytes, b->host_to_device.bytes);
        QCOMPARE(a->device_to_host.bytes, b->device_to_host.bytes);
        QVERIFY(b->peak.measured);
        copySeconds[kind] = b->copy_seconds;
        expectNothingLive();
      }
      QVERIFY2(copySeconds[HostMemoryKind::Pinned] < copySeconds[HostMemoryKind::Pageable], name);
    }
  }

  // CudaRuntime's copy checks nothing itself: the kind it passes does.
  void wrongSidePointersAreRefused() {
    const program::Device cuda0{program::DeviceType::Cuda, 0};
    auto device = RuntimeBuffer::allocate(*cuda_, 4096, MemoryPlace::onDevice(cuda0));
    auto host = RuntimeBuffer::allocate(*cuda_, 4096, MemoryPlace::host(HostMemoryKind::Pinned));
    QVERIFY(device.ok() && host.ok());
    // Host-to-device into host memory, and from device memory.
    auto intoHost = cuda_->copy(host->data(), host->data(), 4096, program::CopyDirection::HostToDevice, cuda0);
    QVERIFY(!intoHost.ok());
    QVERIFY2(intoHost.error().message.find("cudaErrorInvalidValue") != std::string::npos, intoHost.error().message.c_str());
    auto fromDevice = cuda_->copy(device->data(), device->data(), 4096, program::CopyDirection::HostToDevice, cuda0);
    QVERIFY(!fromDevice.ok());
    // Past the end of the device buffer.
    auto past = cuda_->copy(device->data() + 1024, host->data(), 4096, program::CopyDirection::HostToDevice, cuda0);
    QVERIFY(!past.ok());
    // A copy on the wrong device's stream.
    auto wrongDevice = cuda_->copy(device->data(), host->data(), 4096, program::CopyDirection::HostToDevice,
                                   program::Device{program::DeviceType::Cuda, 1});
    QVERIFY(!wrongDevice.ok());
    // The runtime is still usable.
    auto fine = cuda_->copy(device->data(), host->data(), 4096, program::CopyDirection::HostToDevice, cuda0);
    QVERIFY2(fine.ok(), fine ? "" : fine.error().message.c_str());
    QVERIFY(fine->seconds > 0);
  }

  // The stand-in defers pinned copies to a synchronisation point, as a GPU
  // does, so a CudaRuntime that read results or events before synchronising
  // would see stale bytes or cudaErrorNotReady.
  void withoutSynchronisationNothingHasLanded() {
    QCOMPARE(cudaSetDevice(0), cudaSuccess);
    void *device = nullptr, *pinned = nullptr;
    QCOMPARE(cudaMalloc(&device, 256), cudaSuccess);
    QCOMPARE(cudaHostAlloc(&pinned, 256, cudaHostAllocPortable), cudaSuccess);
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr, never = nullptr;
    QCOMPARE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    QCOMPARE(cudaEventCreate(&start), cudaSuccess);
    QCOMPARE(cudaEventCreate(&stop), cudaSuccess);
    QCOMPARE(cudaEventCreate(&never), cudaSuccess);
    std::memset(pinned, 7, 256);
    QCOMPARE(cudaMemcpyAsync(device, pinned, 256, cudaMemcpyHostToDevice, stream), cudaSuccess);
    QCOMPARE(cudaStreamSynchronize(stream), cudaSuccess);
    std::memset(pinned, 0, 256);
    QCOMPARE(cudaEventRecord(start, stream), cudaSuccess);
    QCOMPARE(cudaMemcpyAsync(pinned, device, 256, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    QCOMPARE(cudaEventRecord(stop, stream), cudaSuccess);
    QCOMPARE(static_cast<unsigned char*>(pinned)[0], 0);  // not landed yet
    float ms = 0;
    QCOMPARE(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
    QCOMPARE(cudaEventElapsedTime(&ms, start, never), cudaErrorInvalidResourceHandle);
    QCOMPARE(cudaEventSynchronize(stop), cudaSuccess);
    QCOMPARE(static_cast<unsigned char*>(pinned)[255], 7);
    QCOMPARE(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    QVERIFY(ms > 0);
    // Device memory used as the host side, and a pointer that is no allocation.
    QCOMPARE(cudaMemcpyAsync(device, device, 256, cudaMemcpyHostToDevice, stream), cudaErrorInvalidValue);
    QCOMPARE(cudaFree(pinned), cudaErrorInvalidValue);
    QCOMPARE(cudaFreeHost(device), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    for (auto e : {start, stop, never}) QCOMPARE(cudaEventDestroy(e), cudaSuccess);
    QCOMPARE(cudaStreamDestroy(stream), cudaSuccess);
    QCOMPARE(cudaFree(device), cudaSuccess);
    QCOMPARE(cudaFreeHost(pinned), cudaSuccess);
    // Everything this test made is gone again.
    QCOMPARE(live_(0), 0ull);
    QCOMPARE(live_(-1), 0ull);
  }

  void cleanupTestCase() {
    cuda_.reset();
    if (live_) expectNothingLive();
  }
};

QTEST_GUILESS_MAIN(ExecStandinTest)
#include "test_exec_standin.moc"

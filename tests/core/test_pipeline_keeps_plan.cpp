// propagate with no edits is a no-op (issue 26, item 4): when the device
// passes change nothing and the options are the file's, every method stays
// exactly as loaded, memory plan included, even a plan ptescope's planner
// would lay out differently (upstream's planner, another version, a custom
// pass). An edit that changes the placement still plans again.
#include <QtTest>

#include "passes/Pipeline.h"
#include "passes/ProgramEdits.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;

namespace {

// The demo after the passes, with every planned tensor of buffer 1 moved 64
// bytes up (the buffer grown to match): a valid plan the planner would not
// make itself.
program::Program demoWithShiftedPlan() {
  auto demo = synth::synthesizeDemo();
  if (!demo) return {};
  auto passed = synth::applyDevicePasses(demo.value());
  if (!passed) return {};
  program::Program program = std::move(passed.value());
  for (auto& method : program.methods()) {
    for (auto& value : *method.values)
      if (auto* t = value.tensor(); t && t->allocation_info && t->allocation_info->memory_id == 1)
        t->allocation_info->setOffset(t->allocation_info->offset() + 64);
    auto& sizes = *method.non_const_buffer_sizes;
    if (sizes.size() > 1) sizes[1] += 64;
  }
  return program;
}

std::vector<uint8_t> bytesOf(const program::Program& program) {
  auto bytes = pte::serializeProgram(program);
  return bytes ? bytes.value() : std::vector<uint8_t>{};
}

}  // namespace

class PipelineKeepsPlanTest : public QObject {
  Q_OBJECT
 private slots:
  void noEditKeepsTheFileByteForByte() {
    const program::Program shifted = demoWithShiftedPlan();
    QVERIFY(!shifted.methods().empty());
    const auto original = bytesOf(shifted);
    QVERIFY(!original.empty());
    auto loaded = pte::readProgramBytes(Bytes::copyOf(original), "shifted.pte");
    QVERIFY(loaded.ok());
    auto options = passes::pipelineOptionsFor(loaded->program, {});
    QVERIFY(options.ok());
    auto result = passes::runPipeline(loaded->program, options.value());
    QVERIFY(result.ok());
    QVERIFY(!result->report.changed());
    for (const auto& m : result->report.methods) QVERIFY2(m.plan_kept, m.name.c_str());
    QVERIFY(bytesOf(result->program) == original);
  }

  void anEditStillPlansAgain() {
    const program::Program shifted = demoWithShiftedPlan();
    auto loaded = pte::readProgramBytes(Bytes::copyOf(bytesOf(shifted)), "shifted.pte");
    QVERIFY(loaded.ok());
    passes::ProgramEdits edits;
    auto options = passes::fileOptions(loaded->program);
    auto forward = options[0];
    forward.skip_h2d_for_method_inputs = true;
    forward.alloc_graph_input = false;
    edits.options[loaded->program.methods()[0].displayName()] = forward;
    auto pipeline = passes::pipelineOptionsFor(loaded->program, edits);
    QVERIFY(pipeline.ok());
    auto result = passes::runPipeline(loaded->program, pipeline.value());
    QVERIFY(result.ok());
    QVERIFY(result->report.changed());
    QVERIFY(!result->report.methods[0].plan_kept);
  }
};

QTEST_APPLESS_MAIN(PipelineKeepsPlanTest)
#include "test_pipeline_keeps_plan.moc"

// All eighteen cortex_m:: operators in one program, emitted the way ptescope's
// JSON spec writes them, against the real ExecuTorch runtime with upstream's
// Cortex-M kernels.
//
// How the expected numbers were made: the program below was written with
// `ptescope-cli synth SPEC`; the ExecuTorch runtime built from the upstream
// source at commit cff6f4dd plus upstream's backends/cortex_m/ops/op_*.cpp
// (registered under their operators.yaml names, so the argument counts were
// checked) linked against CMSIS-NN at commit dbf45dbf (the commit upstream's
// backends/cortex_m pins; its portable C code, no Arm DSP/MVE extensions),
// built outside this repository and not committed, loaded it, filled the one
// input with its default ((k mod 11) - 5) / 4, ran it once and wrote every
// output as .npy. The tables hold those files' contents, whole.
//
// The constants are pseudo-random (x = (1103515245 x + 12345) mod 2^31 per
// element, folded into each tensor's range); the program chains quantize,
// add, mul, div, the LUT activation, maximum/minimum with broadcasting,
// transpose, pad, average and max pooling, a 3x3 convolution, a dilated
// depthwise convolution with multiplier 3, linear, batch matmul, softmax, two
// transposed convolutions (CMSIS-NN's row-scatter path and, with 20 input
// channels, its reverse-convolution path) and dequantize.
#include <QtTest>

#include <cstring>
#include <filesystem>

#include "exec/InputFiles.h"
#include "support/RunOnceSupport.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"

using namespace ptescope;

namespace {

const char* const kSpec = R"({"methods": [{"name": "forward", "inputs": ["xf"], "outputs": ["q", "a2", "m", "d", "l", "mx", "mn", "tr", "p", "ap", "mp", "cv", "dw", "ln", "bm", "sm", "tc", "tc2", "f"],
 "tensors": {"xf": {"dtype": "float32", "sizes": [1, 1, 4, 4]}, "q": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "a2": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "m": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "d": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "l": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "mx": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "mn": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "tr": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "p": {"dtype": "int8", "sizes": [1, 1, 5, 5]}, "ap": {"dtype": "int8", "sizes": [1, 1, 3, 3]}, "mp": {"dtype": "int8", "sizes": [1, 1, 3, 3]}, "cv": {"dtype": "int8", "sizes": [1, 4, 1, 1]}, "dw": {"dtype": "int8", "sizes": [1, 3, 1, 1]}, "ln": {"dtype": "int8", "sizes": [1, 1, 4, 3]}, "bm": {"dtype": "int8", "sizes": [2, 3, 5]}, "sm": {"dtype": "int8", "sizes": [1, 1, 4, 3]}, "tc": {"dtype": "int8", "sizes": [1, 1, 4, 4]}, "tc2": {"dtype": "int8", "sizes": [1, 1, 3, 3]}, "f": {"dtype": "float32", "sizes": [1, 1, 4, 3]}},
 "constants": {
   "cA": {"dtype": "int8", "sizes": [1, 1, 4, 4], "data": [38, 103, 20, -67, -78, 3, -128, -71, -2, 95, -84, 117, 10, 123, -104, -15]},
   "cB": {"dtype": "int8", "sizes": [1, 1, 4, 4], "data": [23, -47, 27, -36, -48, -54, -30, 31, 3, 27, -9, -54, 59, -25, -22, -60]},
   "lut": {"dtype": "int8", "sizes": [256], "data": [0, 57, 126, -33, 44, -11, -118, -5, 24, 113, 86, -41, -60, -83, -30, 115, 48, -87, 46, -49, 92, 101, 58, -21, 72, -31, 6, -57, -12, 29, -110, 99, 96, 25, -34, -65, -116, -43, -22, -37, 120, 81, -74, -73, 36, -115, 66, 83, -112, -119, -114, -81, -68, 69, -102, -53, -88, -63, 102, -89, 84, -3, -14, 67, -64, -7, 62, -97, -20, -75, 74, -69, -40, 49, 22, -105, -124, 109, -94, 51, -16, 105, -18, -113, 28, 37, -6, -85, 8, -95, -58, -121, -76, -35, 82, 35, 32, -39, -98, 127, 76, -107, -86, -101, 56, 17, 118, 119, -28, 77, 2, 19, 80, 73, 78, 111, 124, 5, 90, -117, 104, -127, 38, 103, 20, -67, -78, 3, -128, -71, -2, 95, -84, 117, 10, 123, -104, -15, -42, 87, 68, 45, 98, -13, -80, 41, -82, 79, -36, -27, -70, 107, -56, 97, -122, 71, 116, -99, 18, -29, -32, -103, 94, 63, 12, 85, 106, 91, -8, -47, 54, 55, -92, 13, -62, -45, 16, 9, 14, 47, 60, -59, 26, 75, 40, 65, -26, 39, -44, 125, 114, -61, 64, 121, -66, 31, 108, 53, -54, 59, 88, -79, -106, 23, 4, -19, 34, -77, 112, -23, 110, 15, -100, -91, 122, 43, -120, 33, 70, 7, 52, 93, -46, -93, -96, 89, 30, -1, -52, 21, 42, 27, -72, -111, -10, -9, 100, -51, -126, -109, -48, -55, -50, -17, -4, -123, -38, 11, -24, 1, -90, -25, -108, 61, 50, -125]},
   "cRow": {"dtype": "int8", "sizes": [1, 1, 1, 4], "data": [25, -9, -39, 36]},
   "cCol": {"dtype": "int8", "sizes": [1, 1, 4, 1], "data": [45, 40, -2, 31]},
   "wc": {"dtype": "int8", "sizes": [4, 3, 3, 1], "data": [71, 116, -99, 18, -29, -32, -103, 94, 63, 12, 85, 106, 91, -8, -47, 54, 55, -92, 13, -62, -45, 16, 9, 14, 47, 60, -59, 26, 75, 40, 65, -26, 39, -44, 125, 114]},
   "bc": {"dtype": "int32", "sizes": [4], "data": [-2543, -1760, -1753, 946]},
   "mc": {"dtype": "int32", "sizes": [4], "data": [1311941537, 1760618950, 1794248071, 1184437428]},
   "shc": {"dtype": "int32", "sizes": [4], "data": [-9, -8, -10, -7]},
   "wd": {"dtype": "int8", "sizes": [1, 2, 2, 3], "data": [-114, -81, -68, 69, -102, -53, -88, -63, 102, -89, 84, -3]},
   "bd": {"dtype": "int32", "sizes": [3], "data": [-1863, 392, 665]},
   "md": {"dtype": "int32", "sizes": [3], "data": [1401261800, 1893251329, 1818968998]},
   "shd": {"dtype": "int32", "sizes": [3], "data": [-7, -6, -8]},
   "wl": {"dtype": "int8", "sizes": [3, 4], "data": [-43, -22, -37, 120, 81, -74, -73, 36, -115, 66, 83, -112]},
   "bl": {"dtype": "int32", "sizes": [3], "data": [-2424, -4693, -3371]},
   "lhs": {"dtype": "int8", "sizes": [2, 3, 4], "data": [-81, -68, 69, -102, -53, -88, -63, 102, -89, 84, -3, -14, 67, -64, -7, 62, -97, -20, -75, 74, -69, -40, 49, 22]},
   "rhs": {"dtype": "int8", "sizes": [2, 5, 4], "data": [28, 37, -6, -85, 8, -95, -58, -121, -76, -35, 82, 35, 32, -39, -98, 127, 76, -107, -86, -101, 56, 17, 118, 119, -28, 77, 2, 19, 80, 73, 78, 111, 124, 5, 90, -117, 104, -127, 38, 103]},
   "ti": {"dtype": "int8", "sizes": [1, 1, 2, 2], "data": [-119, -114, -81, -68]},
   "wt": {"dtype": "int8", "sizes": [1, 2, 2, 1], "data": [-10, -9, 100, -51]},
   "bt": {"dtype": "int32", "sizes": [1], "data": [77]},
   "mt": {"dtype": "int32", "sizes": [1], "data": [1500000000]},
   "sht": {"dtype": "int32", "sizes": [1], "data": [-5]},
   "ti2": {"dtype": "int8", "sizes": [1, 20, 1, 1], "data": [99, 96, 25, -34, -65, -116, -43, -22, -37, 120, 81, -74, -73, 36, -115, 66, 83, -112, -119, -114]},
   "wt2": {"dtype": "int8", "sizes": [1, 3, 3, 20], "data": [-48, -55, -50, -17, -4, -123, -38, 11, -24, 1, -90, -25, -108, 61, 50, -125, 0, 57, 126, -33, 44, -11, -118, -5, 24, 113, 86, -41, -60, -83, -30, 115, 48, -87, 46, -49, 92, 101, 58, -21, 72, -31, 6, -57, -12, 29, -110, 99, 96, 25, -34, -65, -116, -43, -22, -37, 120, 81, -74, -73, 36, -115, 66, 83, -112, -119, -114, -81, -68, 69, -102, -53, -88, -63, 102, -89, 84, -3, -14, 67, -64, -7, 62, -97, -20, -75, 74, -69, -40, 49, 22, -105, -124, 109, -94, 51, -16, 105, -18, -113, 28, 37, -6, -85, 8, -95, -58, -121, -76, -35, 82, 35, 32, -39, -98, 127, 76, -107, -86, -101, 56, 17, 118, 119, -28, 77, 2, 19, 80, 73, 78, 111, 124, 5, 90, -117, 104, -127, 38, 103, 20, -67, -78, 3, -128, -71, -2, 95, -84, 117, 10, 123, -104, -15, -42, 87, 68, 45, 98, -13, -80, 41, -82, 79, -36, -27, -70, 107, -56, 97, -122, 71, 116, -99, 18, -29, -32, -103, 94, 63]},
   "s0": {"dtype": "int8", "sizes": [0], "fill": 0},
   "s64": {"dtype": "int8", "sizes": [64], "fill": 0},
   "s4k": {"dtype": "int8", "sizes": [4096], "fill": 0},
   "s4k2": {"dtype": "int8", "sizes": [4096], "fill": 0}
 },
 "nodes": [
   {"op": "cortex_m::quantize_per_tensor.out", "inputs": ["xf", 0.02, 3, -128, 127, 1], "outputs": ["q"]},
   {"op": "cortex_m::quantized_add.out", "inputs": ["q", 3, 1073741824, 0, "cA", -5, 1500000000, -1, -2, 1300000000, -18, -128, 127], "outputs": ["a2"]},
   {"op": "cortex_m::quantized_mul.out", "inputs": ["a2", 1, "cA", -3, 4, 1400000000, -6], "outputs": ["m"]},
   {"op": "cortex_m::quantized_div.out", "inputs": ["m", 2, "cB", 0, -1, 3.7], "outputs": ["d"]},
   {"op": "cortex_m::quantized_activation.out", "inputs": ["d", "lut"], "outputs": ["l"]},
   {"op": "cortex_m::maximum.out", "inputs": ["l", "cRow"], "outputs": ["mx"]},
   {"op": "cortex_m::minimum.out", "inputs": ["mx", "cCol"], "outputs": ["mn"]},
   {"op": "cortex_m::transpose.out", "inputs": ["mn", [0, 1, 3, 2]], "outputs": ["tr"]},
   {"op": "cortex_m::pad.out", "inputs": ["tr", [0, 1, 0, 0], [0, 0, 1, 0], -9], "outputs": ["p"]},
   {"op": "cortex_m::quantized_avg_pool2d.out", "inputs": ["p", [2, 2], [2, 2], [1, 1], false, 0, 0, 0, "s0"], "outputs": ["ap"]},
   {"op": "cortex_m::quantized_max_pool2d.out", "inputs": ["p", [3, 3], [2, 2], [1, 1], [1, 1], false, 0, 0, -100, 100], "outputs": ["mp"]},
   {"op": "cortex_m::quantized_conv2d.out", "inputs": ["mp", "wc", "bc", [1, 1], [0, 0], [1, 1], 5, -7, "mc", "shc", -128, 127, "s64"], "outputs": ["cv"]},
   {"op": "cortex_m::quantized_depthwise_conv2d.out", "inputs": ["ap", "wd", "bd", [1, 1], [0, 0], [2, 2], 3, 2, 1, "md", "shd", -128, 127, "s0"], "outputs": ["dw"]},
   {"op": "cortex_m::quantized_linear.out", "inputs": ["q", "wl", "bl", null, 3, 0, -2, [1200000000], [-7], 127, -128], "outputs": ["ln"]},
   {"op": "cortex_m::quantized_batch_matmul.out", "inputs": ["lhs", 5, "rhs", -3, 2, 1100000000, -8, "s0"], "outputs": ["bm"]},
   {"op": "cortex_m::softmax.out", "inputs": ["ln", -1, 0, -128, 1518500250, 22, -60], "outputs": ["sm"]},
   {"op": "cortex_m::quantized_transpose_conv2d.out", "inputs": ["ti", "wt", "bt", [2, 2], [0, 0], [0, 0], [1, 1], 4, -3, "mt", "sht", -128, 127, "s64", "s0"], "outputs": ["tc"]},
   {"op": "cortex_m::quantized_transpose_conv2d.out", "inputs": ["ti2", "wt2", "bt", [1, 1], [0, 0], [0, 0], [1, 1], 4, -3, "mt", "sht", -128, 127, "s4k", "s4k2"], "outputs": ["tc2"]},
   {"op": "cortex_m::dequantize_per_tensor.out", "inputs": ["sm", 0.00390625, -128, -128, 127, 1], "outputs": ["f"]}
 ]}]})";

struct Expected {
  const char* name;
  bool isFloat;
  std::vector<double> values;  // int8 outputs as integers, float32 ones as their exact values
};

const std::vector<Expected>& expected() {
  static const std::vector<Expected> all = {
      {"q", false, {-59, -47, -35, -22, -9, 3, 15, 28, 41, 53, 65, -59, -47, -35, -22, -9}},
      {"a2", false, {-41, 29, -27, -85, -78, 5, -91, -28, 47, 127, 6, 26, -50, 60, -116, -25}},
      {"m", false, {-14, 34, -3, 60, 64, 4, 121, 24, 4, 127, 0, 35, -3, 80, 124, 7}},
      {"d", false, {-4, -4, -2, -7, -6, -1, -16, 2, 1, 16, 0, -3, -1, -13, -22, -1}},
      {"l", false, {20, 20, -78, -127, 38, 3, 80, -2, -71, -80, -128, -67, 3, 111, 118, 3}},
      {"mx", false, {25, 20, -39, 36, 38, 3, 80, 36, 25, -9, -39, 36, 25, 111, 118, 36}},
      {"mn", false, {25, 20, -39, 36, 38, 3, 40, 36, -2, -9, -39, -2, 25, 31, 31, 31}},
      {"tr", false, {25, 38, -2, 25, 20, 3, -9, 31, -39, 40, -39, 31, 36, 36, -2, 31}},
      {"p", false, {-9, -9, -9, -9, -9, 25, 38, -2, 25, -9, 20, 3, -9, 31, -9, -39, 40, -39, 31, -9, 36, 36, -2, 31, -9}},
      {"ap", false, {-9, -9, -9, 23, 8, 10, -2, 9, 11}},
      {"mp", false, {38, 38, 25, 40, 40, 31, 40, 40, 31}},
      {"cv", false, {-4, 23, -8, 68}},
      {"dw", false, {-13, 39, 6}},
      {"ln", false, {-3, -21, -4, 1, -27, -21, -67, -55, 29, -1, -23, -8}},
      {"bm", false, {10, 29, 24, -36, 12, -24, -2, 14, 44, 1, 5, -14, 8, -13, -28, 23, -9, 19, 3, 45, -6, 8, -8, -51, -2, 13, 2, 1, -11, 7}},
      {"sm", false, {-22, -80, -26, 25, -83, -70, -128, -128, 127, -7, -82, -39}},
      {"tc", false, {24, 21, 23, 20, -128, 127, -128, 121, 16, 14, 13, 11, -128, 84, -128, 70}},
      {"tc2", false, {-128, -128, 127, 127, 127, 127, -128, 127, -128}},
      {"f", true, {0.4140625, 0.1875, 0.3984375, 0.59765625, 0.17578125, 0.2265625, 0, 0, 0.99609375, 0.47265625, 0.1796875, 0.34765625}},
  };
  return all;
}

}  // namespace

class ExecCortexMOperatorsTest : public QObject {
  Q_OBJECT
 private slots:
  void operatorsMatchTheRealRuntime() {
    auto built = synth::synthesizeFromSpec(kSpec);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    const program::Program& program = built->program;

    exec::HostTensor input;
    input.dtype = program::ScalarType::Float;
    input.sizes = {1, 1, 4, 4};
    for (int k = 0; k < 16; ++k) {
      const float v = float((k % 11) - 5) / 4.0f;
      const auto* b = reinterpret_cast<const uint8_t*>(&v);
      input.bytes.insert(input.bytes.end(), b, b + 4);
    }
    const std::string dir = (test::tempDir() + "/cortex-m-in").toStdString();
    std::filesystem::create_directories(dir);
    test::writeAll(QString::fromStdString(dir + "/0.npy"), exec::encodeNpy(input));

    const auto result = test::runOnceWithEveryInstruction(program, dir);
    QVERIFY(result);
    QCOMPARE(result->outputs.size(), expected().size());
    for (size_t o = 0; o < expected().size(); ++o) {
      const Expected& want = expected()[o];
      const auto& got = result->outputs[o];
      QVERIFY(got.tensor.has_value());
      QCOMPARE(int(got.tensor->dtype), int(want.isFloat ? program::ScalarType::Float : program::ScalarType::Char));
      const auto values = exec::elementsOf(*got.tensor);
      QVERIFY2(values.size() == want.values.size(), want.name);
      for (size_t k = 0; k < values.size(); ++k) {
        const double w = want.isFloat ? double(float(want.values[k])) : want.values[k];
        QVERIFY2(values[k] == w, qPrintable(QString("%1[%2]: %3, the runtime gave %4").arg(want.name).arg(k).arg(values[k]).arg(w)));
      }
    }
  }
};

QTEST_APPLESS_MAIN(ExecCortexMOperatorsTest)
#include "test_exec_cortex_m_operators.moc"

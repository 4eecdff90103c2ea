// graphmend_serve: runs an AOTInductor package (.pt2) from C++, with no Python, against the
// inputs and eager outputs saved beside it (bench/serve/package_rows.py writes both), and times it.
//
//   graphmend_serve --package ROW.pt2 --io ROW.io.pt [--device cpu|cuda] [--warm 50]
//
// ROW.io.pt is a torch.save'd dict:
//   "inputs":  list of tensors, the exported program's flattened inputs in call order;
//   "outputs": list of tensors the package must return bit for bit for those inputs (eager's
//              where Inductor's kernels reproduce it exactly, else the package's own outputs run
//              from Python, so that the C++ path is what is checked);
//   "eager":   optional list of tensors, eager's outputs, to report how far the package is from
//              eager (Inductor may reorder floating-point reductions);
//   "failing": optional list of [inputs, message]: inputs for which the original module raises,
//              and the text the exported program's error must contain ("ValueError: ...").
// Prints one JSON object: load, first call and warm-call times (median and spread, milliseconds),
// whether every output equals "outputs" bit for bit (dtype, shape and bytes), whether it equals
// "eager" and the largest absolute difference from it, and whether every failing input raised its
// message. Exit status 0 when all of it holds, 1 when not, 2 on bad usage.
#include <ATen/ATen.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/cuda.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

c10::IValue load_pickle(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return torch::jit::pickle_load(bytes);
}

std::vector<at::Tensor> tensors_of(const c10::IValue& list, const c10::Device& device) {
    std::vector<at::Tensor> tensors;
    for (const c10::IValue& item : list.toListRef()) tensors.push_back(item.toTensor().to(device));
    return tensors;
}

c10::IValue field(const c10::Dict<c10::IValue, c10::IValue>& dict, const std::string& key) {
    auto found = dict.find(key);
    return found == dict.end() ? c10::IValue() : found->value();
}

// Bit-for-bit: same dtype, same shape, same bytes (so -0.0 against 0.0 and NaN payloads count).
bool identical(const at::Tensor& got, const at::Tensor& expected) {
    if (got.scalar_type() != expected.scalar_type() || got.sizes() != expected.sizes()) return false;
    const at::Tensor a = got.cpu().contiguous();
    const at::Tensor b = expected.cpu().contiguous();
    return std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

// The largest |got - expected| over floating-point outputs of the same shape (0 otherwise).
double largest_difference(const at::Tensor& got, const at::Tensor& expected) {
    if (!expected.is_floating_point() || got.sizes() != expected.sizes() || expected.numel() == 0) return 0.0;
    return (got.cpu().to(at::kDouble) - expected.to(at::kDouble)).abs().max().item<double>();
}

void synchronize(const c10::Device& device) {
    if (device.is_cuda()) torch::cuda::synchronize();
}

std::string json_string(const std::string& text) {
    std::ostringstream out;
    out << '"';
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out << '\\' << c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out << ' ';
        } else {
            out << c;
        }
    }
    out << '"';
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Run an AOTInductor package from C++ against saved eager outputs"};
    std::string package;
    std::string io_path;
    std::string device_name = "cpu";
    int warm_calls = 50;
    app.add_option("--package", package, "the .pt2 package")->required();
    app.add_option("--io", io_path, "the saved inputs and eager outputs")->required();
    app.add_option("--device", device_name, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    app.add_option("--warm", warm_calls, "warm calls timed (median of these)")->check(CLI::Range(1, 100000));
    CLI11_PARSE(app, argc, argv);

    try {
        at::NoGradGuard no_grad;
        const c10::Device device(device_name == "cuda" ? at::kCUDA : at::kCPU);
        if (device.is_cuda() && !torch::cuda::is_available()) {
            std::cerr << "graphmend_serve: --device cuda, but this LibTorch sees no CUDA device\n";
            return 2;
        }
        const auto io = load_pickle(io_path).toGenericDict();
        const std::vector<at::Tensor> inputs = tensors_of(field(io, "inputs"), device);
        const std::vector<at::Tensor> expected = tensors_of(field(io, "outputs"), at::kCPU);

        auto start = Clock::now();
        torch::inductor::AOTIModelPackageLoader loader(package);
        const double load_ms = milliseconds_since(start);

        start = Clock::now();
        std::vector<at::Tensor> outputs = loader.run(inputs);
        synchronize(device);
        const double first_ms = milliseconds_since(start);

        bool outputs_identical = outputs.size() == expected.size();
        for (size_t i = 0; outputs_identical && i < outputs.size(); ++i) {
            outputs_identical = identical(outputs[i], expected[i]);
        }
        std::string eager_report;
        if (const c10::IValue eager_list = field(io, "eager"); !eager_list.isNone()) {
            const std::vector<at::Tensor> eager = tensors_of(eager_list, at::kCPU);
            bool eager_identical = eager.size() == outputs.size();
            double max_abs_diff = 0.0;
            for (size_t i = 0; i < outputs.size() && i < eager.size(); ++i) {
                eager_identical = eager_identical && identical(outputs[i], eager[i]);
                max_abs_diff = std::max(max_abs_diff, largest_difference(outputs[i], eager[i]));
            }
            std::ostringstream report;
            report << ", \"eager_identical\": " << (eager_identical ? "true" : "false")
                   << ", \"eager_max_abs_diff\": " << max_abs_diff;
            eager_report = report.str();
        }

        std::vector<double> warm(static_cast<size_t>(warm_calls));
        for (double& sample : warm) {
            start = Clock::now();
            outputs = loader.run(inputs);
            synchronize(device);
            sample = milliseconds_since(start);
        }
        std::sort(warm.begin(), warm.end());
        const auto quantile = [&](double q) { return warm[static_cast<size_t>(q * static_cast<double>(warm.size() - 1))]; };

        // The failing inputs: the exported form of a [Trap] check must still stop the call with
        // the original exception's class and message.
        int failing_total = 0;
        int failing_raised = 0;
        std::string failing_detail;
        if (const c10::IValue failing = field(io, "failing"); !failing.isNone()) {
            for (const c10::IValue& entry : failing.toListRef()) {
                const auto pair = entry.toListRef();
                const std::string message = pair[1].toStringRef();
                ++failing_total;
                try {
                    loader.run(tensors_of(pair[0], device));
                    synchronize(device);
                    failing_detail = "no error for a failing input (" + message + ")";
                } catch (const std::exception& error) {
                    if (std::string(error.what()).find(message) != std::string::npos) {
                        ++failing_raised;
                    } else {
                        failing_detail = std::string("error without the message: ") + error.what();
                    }
                }
            }
        }

        std::cout << "{\"package\": " << json_string(package) << ", \"device\": " << json_string(device_name)
                  << ", \"load_ms\": " << load_ms << ", \"first_call_ms\": " << first_ms
                  << ", \"warm_calls\": " << warm_calls << ", \"warm_median_ms\": " << quantile(0.5)
                  << ", \"warm_p10_ms\": " << quantile(0.1) << ", \"warm_p90_ms\": " << quantile(0.9)
                  << ", \"outputs\": " << outputs.size()
                  << ", \"identical\": " << (outputs_identical ? "true" : "false")
                  << eager_report << ", \"failing_inputs\": " << failing_total << ", \"failing_raised\": " << failing_raised;
        if (!failing_detail.empty()) std::cout << ", \"failing_detail\": " << json_string(failing_detail.substr(0, 300));
        std::cout << "}\n";
        return outputs_identical && failing_raised == failing_total ? 0 : 1;
    } catch (const std::exception& error) {
        std::cerr << "graphmend_serve: " << error.what() << '\n';
        return 1;
    }
}

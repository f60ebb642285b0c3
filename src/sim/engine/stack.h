// stack.h: versioned serving stacks (data/stacks/<name>@<version>.json).
//
// A stack is a serving engine on one vendor's software (TensorRT-LLM on CUDA,
// vLLM on ROCm, SGLang on either) at one version with its release date. Its
// parameters (efficiency.h) turn the hardware's peaks into what its kernels
// achieve, and its fixed costs into time per kernel, per step and per
// collective. Each parameter carries its source in the file: a reference, an
// assumption, or "fitted: ..." naming the published results `frontier
// calibrate` fitted it to.
//
// Versions inherit. A version's parent is the one its file names in
// "inherits", else the newest version of the same stack released before it.
// A parameter the file does not set is the parent's (with provenance saying
// so): a version fitted on one model family sets only what that family
// identifies and keeps the rest of what its predecessors measured. A fitted
// parameter's prior (what calibration regularises it toward) is the parent's
// value; a version without a parent keeps its prior in the file.
//
//   Result<Stack> s = LoadStack("sglang-rocm@0.4.2");   // one version
//   Result<Stack> n = LoadStack("vllm-rocm");           // its newest version
//   Result<Stack> d = DefaultStack("amd");              // the vendor's default engine, newest version
//
// Thread safety: values; loading reads files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/efficiency.h"

namespace frontier::sim {

// Where one parameter's value comes from.
struct ParamOrigin {
  enum class Kind { kGiven, kFitted, kInherited };
  Kind kind = Kind::kGiven;   // given in the file (a reference or an assumption), fitted, or inherited
  std::string source;         // the source text of the file that sets it
  std::string from;           // kInherited: the version whose file sets the value
  bool fitted_there = false;  // kInherited: whether that version fitted it

  bool fitted() const { return kind == Kind::kFitted; }
  // "fitted", "given", "inherited from vllm-rocm@0.6.5 (fitted there)".
  std::string Describe() const;
};

// How an engine schedules prompts (worker.h):
//   kChunkedMixed    prompts split by the step's token budget, their chunks
//                    sharing steps with decode tokens (vLLM's chunked prefill)
//   kWholeMixed      whole prompts in the same steps as decode tokens
//                    (TensorRT-LLM's in-flight batching without chunked context)
//   kChunkedSeparate prompts split by the budget; a step runs prompt chunks or
//                    decodes, prompts first (SGLang's default)
//   kWholeSeparate   whole prompts, prompt-only steps first (vLLM V0 without
//                    chunked prefill; its budget then defaults to
//                    max(max_model_len, 2048) tokens)
enum class PrefillMode { kChunkedMixed, kWholeMixed, kChunkedSeparate, kWholeSeparate };
// "chunked-mixed", ... as in the stack files.
const char* PrefillModeName(PrefillMode m);
// Reads one of those names; false for anything else.
bool ParsePrefillMode(const std::string& text, PrefillMode* out);

struct Stack {
  std::string name;                  // "vllm-rocm", "trtllm", ...
  std::string version;               // "0.4.3"
  std::string release_date;          // "2024-06-12" (ISO date; orders versions)
  std::string engine, platform;      // "vllm", "rocm"
  std::string vendor;                // "nvidia" or "amd"
  std::string display_name;
  std::string attention_backend;     // as documented by the engine at that version
  std::string parent;                // the version it inherits from ("" = none)
  bool default_for_vendor = false;   // the vendor's default engine (its newest version is used)
  bool graphs = true;                // decode-only steps replayed from CUDA/HIP graphs
  bool overlap_scheduler = false;    // scheduler CPU time overlaps the GPU step
  // How prompts are scheduled (worker.h): per stack version, and for MLA
  // models where the version differs (vLLM 0.7.x turned chunked prefill off
  // for them).
  PrefillMode prefill = PrefillMode::kChunkedMixed;
  std::optional<PrefillMode> mla_prefill;  // unset: as prefill
  StackParams params;
  std::map<std::string, ParamOrigin> origins;  // every parameter's provenance
  // What calibration regularises each parameter toward: for a fitted
  // parameter the parent's value (or, without a parent, the prior kept in the
  // file), for the others their value. Never an earlier fit of the same
  // version, so a leave-one-out refit learns nothing from the point left out.
  StackParams priors;
  std::vector<std::string> free_params;  // what `frontier calibrate` fits by default
  double gpu_memory_utilization = 0.9;  // the engine's memory fraction (its meaning: memory_fraction_of)
  // What the engine's memory fraction is a fraction of (config.cc, PlanMemory):
  //   kDevice  vLLM's --gpu-memory-utilization: weights, activations, the
  //            runtime reserve and the KV cache all within fraction x HBM;
  //   kStatic  SGLang's --mem-fraction-static: weights and the KV pool within
  //            fraction x HBM, activations (and CUDA graphs) in the rest, so
  //            KV = fraction x HBM - weights - runtime reserve;
  //   kFree    TensorRT-LLM's kv_cache_config.free_gpu_memory_fraction: the KV
  //            cache takes that fraction of what the weights, the profiling
  //            pass's activations and the runtime reserve leave.
  // Set per version by the stack file's "memory_fraction_of" (not inherited).
  enum class MemoryFractionOf { kDevice, kStatic, kFree };
  MemoryFractionOf memory_fraction_of = MemoryFractionOf::kDevice;
  // Engine memory behaviour the memory plan follows (config.cc, PlanMemory;
  // docs/simulate.md, "Memory" under Deployments). Each is off unless the
  // stack file says so (a version does not inherit them from its parent).
  int mla_kv_align_bytes = 0;           // MLA cache entries (per token and layer) padded to a multiple of this
  bool mla_absorbed_weights = false;    // MLA decode matrices W_UQ.W_UK and W_UV.W_O kept beside the originals
  bool allreduce_out_of_place = false;  // a tensor-parallel all-reduce writes a new tensor
  bool mla_output_buffer = false;       // the MLA layer allocates its hidden-size output before attending
  // Admission (worker.h): a request is admitted only when the pages for its
  // whole prompt and output are free beside what every running request may
  // still take, and nothing is ever preempted (TensorRT-LLM's
  // GUARANTEED_NO_EVICT capacity scheduler); else admitted by what it needs
  // now, the newest preempted when pages run out (vLLM, SGLang).
  bool reserve_to_completion = false;
  int max_num_seqs = 256;            // default running-sequence cap (per DP rank)
  int max_num_batched_tokens = 8192; // default token budget per step (per DP rank)
  // Calibration record: what the fitted parameters were fitted to, and when.
  std::vector<std::string> fitted_to;   // published-result ids or measured-run ids
  std::vector<std::string> fitted_classes;  // model classes of those results (dense, MoE, MLA)
  std::string calibrated_on;            // date of the fit ("" = never calibrated)
  std::string calibration_note;         // one line for --list
  std::string file;

  std::string id() const { return name + "@" + version; }
  // The prompt scheduling for a model with (or without) MLA.
  PrefillMode PrefillFor(bool mla) const { return mla && mla_prefill ? *mla_prefill : prefill; }
};

// Loads "name" (its newest version by release date) or "name@version"
// (case-insensitive); a version that is a prefix of others ("0.4" of 0.4.2,
// 0.4.3) names the newest of that series. Unknown names or versions fail with NotFound listing the
// known ones; a broken file (or a broken parent) fails naming the file and the field.
Result<Stack> LoadStack(std::string_view spec, const std::string& data_dir = DefaultDataDir());
// The stack version a deployment gets without --stack, for "nvidia" / "amd"
// and a model class ("dense", "MoE", "MLA"; model.h, ModelClass). A
// version's evidence for a class is the release date of the newest version
// of its lineage (itself, its parent, ...) whose fit saw results of that
// class (calibration.classes). The pick is the version marked
// default_for_vendor with the newest evidence (ties: the newest release);
// without such a version, any version with evidence; without any evidence,
// the newest version marked default_for_vendor. So a default is never
// unfitted for the model's class while a fitted one exists.
Result<Stack> DefaultStack(std::string_view vendor, std::string_view model_class,
                           const std::string& data_dir = DefaultDataDir());
// `--stack best`: of every version of the vendor, of any engine and marked
// default_for_vendor or not, the newest release whose own fit saw results of
// the class (its calibration.classes; inherited evidence does not count, so
// an unfitted newer version never wins); ties: the higher version. Without
// one, DefaultStack.
Result<Stack> BestStack(std::string_view vendor, std::string_view model_class,
                        const std::string& data_dir = DefaultDataDir());
// The value of --stack (and a plan's stack:) that asks for BestStack.
inline constexpr std::string_view kBestStack = "best";
// Parses one stack file and resolves its inheritance against the other files
// of its folder. Every parameter of StackParamInfo() must be present as
// {"value": v, "source": "..."} within its range, or come from the parent;
// errors name the file, the parameter and the range.
Result<Stack> LoadStackFile(const std::string& path);
// Every stack version of the folder, resolved, ordered by name, then release
// date. Fails naming the first broken file.
Result<std::vector<Stack>> LoadStackCatalog(const std::string& data_dir = DefaultDataDir());
// Every stack version that resolves (broken files are left out), in the same order.
std::vector<Stack> ListStackVersions(const std::string& data_dir = DefaultDataDir());
// "name@version" of every stack version, in the same order.
std::vector<std::string> ListStacks(const std::string& data_dir = DefaultDataDir());

}  // namespace frontier::sim

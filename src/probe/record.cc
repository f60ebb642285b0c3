// record.cc: ProbeResult <-> JSON <-> stored run.
#include "probe/record.h"

#include <cstdio>

namespace frontier::probe {
namespace {

using nlohmann::json;

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

json GemmJson(const GemmPoint& g) {
  return {{"model", g.model},
          {"layer", g.layer},
          {"precision", GemmPrecisionName(g.precision)},
          {"m", g.m},
          {"n", g.n},
          {"k", g.k},
          {"peak_tflops", g.peak_tflops},
          {"default_seconds", g.default_seconds},
          {"tuned_seconds", g.tuned_seconds},
          {"tuned_rank", g.tuned_rank},
          {"tuned_algo", g.tuned_algo},
          {"candidates", g.candidates},
          {"default_tflops", g.DefaultTflops()},
          {"tuned_tflops", g.TunedTflops()},
          {"default_fraction_of_peak", g.DefaultFraction()},
          {"tuned_fraction_of_peak", g.TunedFraction()}};
}

json StreamJson(const StreamPoint& s) {
  return {{"kernel", s.kernel},         {"bytes_per_array", s.bytes_per_array}, {"seconds", s.seconds},
          {"bytes_moved", s.bytes_moved}, {"peak_gbps", s.peak_gbps},           {"gbps", s.Gbps()},
          {"fraction_of_peak", s.Fraction()}};
}

json DecodeJson(const DecodePoint& d) {
  return {{"model", d.model},
          {"batch", d.problem.batch},
          {"context", d.problem.context},
          {"heads", d.problem.heads},
          {"kv_heads", d.problem.kv_heads},
          {"head_dim", d.problem.head_dim},
          {"seconds", d.seconds},
          {"bytes_moved", d.bytes_moved},
          {"max_abs_error", d.max_abs_error},
          {"peak_gbps", d.peak_gbps},
          {"gbps", d.Gbps()},
          {"fraction_of_peak", d.Fraction()}};
}

json CollectiveJson(const CollectivePoint& c) {
  return {{"op", c.op},           {"gpus", c.result.gpus},       {"bytes", c.result.bytes},
          {"seconds", c.result.seconds}, {"bus_gbps", c.result.bus_gbps}};
}

// Reads obj[key] as T, failing with the field's path.
template <typename T>
Status Read(const json& obj, const char* key, const std::string& where, T* out) {
  const auto it = obj.find(key);
  if (it == obj.end()) return InvalidArgument(where + "." + key + " is missing");
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return InvalidArgument(where + "." + key + " has the wrong type");
  }
  return Status::Ok();
}

Result<GemmPoint> GemmFromJson(const json& j, const std::string& where) {
  GemmPoint g;
  std::string precision;
  FRONTIER_RETURN_IF_ERROR(Read(j, "model", where, &g.model));
  FRONTIER_RETURN_IF_ERROR(Read(j, "layer", where, &g.layer));
  FRONTIER_RETURN_IF_ERROR(Read(j, "precision", where, &precision));
  FRONTIER_ASSIGN_OR_RETURN(g.precision, ParseGemmPrecision(precision, where + ".precision"));
  FRONTIER_RETURN_IF_ERROR(Read(j, "m", where, &g.m));
  FRONTIER_RETURN_IF_ERROR(Read(j, "n", where, &g.n));
  FRONTIER_RETURN_IF_ERROR(Read(j, "k", where, &g.k));
  FRONTIER_RETURN_IF_ERROR(Read(j, "peak_tflops", where, &g.peak_tflops));
  FRONTIER_RETURN_IF_ERROR(Read(j, "default_seconds", where, &g.default_seconds));
  FRONTIER_RETURN_IF_ERROR(Read(j, "tuned_seconds", where, &g.tuned_seconds));
  FRONTIER_RETURN_IF_ERROR(Read(j, "tuned_rank", where, &g.tuned_rank));
  FRONTIER_RETURN_IF_ERROR(Read(j, "tuned_algo", where, &g.tuned_algo));
  FRONTIER_RETURN_IF_ERROR(Read(j, "candidates", where, &g.candidates));
  if (!(g.tuned_seconds > 0) || g.m < 1 || g.n < 1 || g.k < 1)
    return InvalidArgument(where + ": tuned_seconds, m, n and k must be positive");
  return g;
}

Result<StreamPoint> StreamFromJson(const json& j, const std::string& where) {
  StreamPoint s;
  FRONTIER_RETURN_IF_ERROR(Read(j, "kernel", where, &s.kernel));
  FRONTIER_RETURN_IF_ERROR(Read(j, "bytes_per_array", where, &s.bytes_per_array));
  FRONTIER_RETURN_IF_ERROR(Read(j, "seconds", where, &s.seconds));
  FRONTIER_RETURN_IF_ERROR(Read(j, "bytes_moved", where, &s.bytes_moved));
  FRONTIER_RETURN_IF_ERROR(Read(j, "peak_gbps", where, &s.peak_gbps));
  return s;
}

Result<DecodePoint> DecodeFromJson(const json& j, const std::string& where) {
  DecodePoint d;
  FRONTIER_RETURN_IF_ERROR(Read(j, "model", where, &d.model));
  FRONTIER_RETURN_IF_ERROR(Read(j, "batch", where, &d.problem.batch));
  FRONTIER_RETURN_IF_ERROR(Read(j, "context", where, &d.problem.context));
  FRONTIER_RETURN_IF_ERROR(Read(j, "heads", where, &d.problem.heads));
  FRONTIER_RETURN_IF_ERROR(Read(j, "kv_heads", where, &d.problem.kv_heads));
  FRONTIER_RETURN_IF_ERROR(Read(j, "head_dim", where, &d.problem.head_dim));
  FRONTIER_RETURN_IF_ERROR(Read(j, "seconds", where, &d.seconds));
  FRONTIER_RETURN_IF_ERROR(Read(j, "bytes_moved", where, &d.bytes_moved));
  FRONTIER_RETURN_IF_ERROR(Read(j, "max_abs_error", where, &d.max_abs_error));
  FRONTIER_RETURN_IF_ERROR(Read(j, "peak_gbps", where, &d.peak_gbps));
  return d;
}

Result<CollectivePoint> CollectiveFromJson(const json& j, const std::string& where) {
  CollectivePoint c;
  c.result.ran = true;
  FRONTIER_RETURN_IF_ERROR(Read(j, "op", where, &c.op));
  FRONTIER_RETURN_IF_ERROR(Read(j, "gpus", where, &c.result.gpus));
  FRONTIER_RETURN_IF_ERROR(Read(j, "bytes", where, &c.result.bytes));
  FRONTIER_RETURN_IF_ERROR(Read(j, "seconds", where, &c.result.seconds));
  FRONTIER_RETURN_IF_ERROR(Read(j, "bus_gbps", where, &c.result.bus_gbps));
  return c;
}

json DeviceJson(const ProbeResult& r) {
  json precisions = json::array();
  for (GemmPrecision p : r.device.gemm_precisions) precisions.push_back(GemmPrecisionName(p));
  return {{"name", r.device.name},
          {"backend", r.device.backend},
          {"arch", r.device.arch},
          {"devices", r.device.devices},
          {"multiprocessors", r.device.multiprocessors},
          {"memory_gib", r.device.memory_gib},
          {"library_versions", r.device.library_versions},
          {"gemm_precisions", precisions}};
}

Status DeviceFromJson(const json& j, DeviceInfo* d) {
  FRONTIER_RETURN_IF_ERROR(Read(j, "name", "device", &d->name));
  FRONTIER_RETURN_IF_ERROR(Read(j, "backend", "device", &d->backend));
  FRONTIER_RETURN_IF_ERROR(Read(j, "arch", "device", &d->arch));
  FRONTIER_RETURN_IF_ERROR(Read(j, "devices", "device", &d->devices));
  FRONTIER_RETURN_IF_ERROR(Read(j, "multiprocessors", "device", &d->multiprocessors));
  FRONTIER_RETURN_IF_ERROR(Read(j, "memory_gib", "device", &d->memory_gib));
  FRONTIER_RETURN_IF_ERROR(Read(j, "library_versions", "device", &d->library_versions));
  std::vector<std::string> precisions;
  FRONTIER_RETURN_IF_ERROR(Read(j, "gemm_precisions", "device", &precisions));
  for (const auto& p : precisions) {
    FRONTIER_ASSIGN_OR_RETURN(GemmPrecision gp, ParseGemmPrecision(p, "device.gemm_precisions"));
    d->gemm_precisions.push_back(gp);
  }
  return Status::Ok();
}

json OptionsJson(const ProbeOptions& o) {
  json precisions = json::array();
  for (GemmPrecision p : o.precisions) precisions.push_back(GemmPrecisionName(p));
  return {{"tp", o.tp},
          {"tokens", o.tokens},
          {"precisions", precisions},
          {"top_n", o.top_n},
          {"iterations", o.iterations},
          {"stream_bytes", o.stream_bytes},
          {"decode_batch", o.decode_batch},
          {"decode_context", o.decode_context},
          {"collective_bytes", o.collective_bytes}};
}

}  // namespace

nlohmann::json ProbeToJson(const ProbeResult& r) {
  json j;
  j["kind"] = "probe";
  j["hardware"] = r.hardware;
  j["device"] = DeviceJson(r);
  j["models"] = r.models;
  j["options"] = OptionsJson(r.options);
  j["gemm"] = json::array();
  for (const auto& g : r.gemm) j["gemm"].push_back(GemmJson(g));
  j["stream"] = json::array();
  for (const auto& s : r.stream) j["stream"].push_back(StreamJson(s));
  j["decode"] = json::array();
  for (const auto& d : r.decode) j["decode"].push_back(DecodeJson(d));
  j["collectives"] = json::array();
  for (const auto& c : r.collectives) j["collectives"].push_back(CollectiveJson(c));
  j["notes"] = r.notes;
  return j;
}

Result<ProbeResult> ProbeFromJson(const nlohmann::json& j) {
  if (!j.is_object() || j.value("kind", "") != "probe")
    return InvalidArgument("probe result: expected an object with \"kind\": \"probe\"");
  ProbeResult r;
  FRONTIER_RETURN_IF_ERROR(Read(j, "hardware", "probe", &r.hardware));
  if (!j.contains("device")) return InvalidArgument("probe.device is missing");
  FRONTIER_RETURN_IF_ERROR(DeviceFromJson(j["device"], &r.device));
  FRONTIER_RETURN_IF_ERROR(Read(j, "models", "probe", &r.models));
  FRONTIER_RETURN_IF_ERROR(Read(j, "notes", "probe", &r.notes));
  if (j.contains("options")) {
    const json& o = j["options"];
    FRONTIER_RETURN_IF_ERROR(Read(o, "tp", "options", &r.options.tp));
    FRONTIER_RETURN_IF_ERROR(Read(o, "tokens", "options", &r.options.tokens));
  }
  // Each element of the array `key`, parsed by `parse` (which names it key[i] in errors) onto `out`.
  const auto each = [&](const char* key, auto parse, auto* out) -> Status {
    if (!j.contains(key) || !j[key].is_array()) return InvalidArgument(std::string("probe.") + key + " must be an array");
    for (size_t i = 0; i < j[key].size(); ++i) {
      FRONTIER_ASSIGN_OR_RETURN(auto point, parse(j[key][i], std::string(key) + "[" + std::to_string(i) + "]"));
      out->push_back(std::move(point));
    }
    return Status::Ok();
  };
  FRONTIER_RETURN_IF_ERROR(each("gemm", GemmFromJson, &r.gemm));
  FRONTIER_RETURN_IF_ERROR(each("stream", StreamFromJson, &r.stream));
  FRONTIER_RETURN_IF_ERROR(each("decode", DecodeFromJson, &r.decode));
  FRONTIER_RETURN_IF_ERROR(each("collectives", CollectiveFromJson, &r.collectives));
  return r;
}

Result<store::RunInfo> StoreProbe(store::Store& db, const ProbeResult& r, const std::string& label,
                                  const std::map<std::string, std::string>& provenance) {
  store::RunInfo run;
  run.sweep = label;
  run.system = r.hardware;
  run.source = store::source::kMeasured;
  run.config = {{"kind", "probe"},
                {"hardware", r.hardware},
                {"device", r.device.name},
                {"backend", r.device.backend},
                {"arch", r.device.arch},
                {"libraries", r.device.library_versions},
                {"tp", std::to_string(r.options.tp)}};
  std::string models;
  for (const auto& m : r.models) models += (models.empty() ? "" : ",") + m;
  run.config["models"] = models;
  json header = ProbeToJson(r);
  header.erase("gemm");
  header.erase("stream");
  header.erase("decode");
  header.erase("collectives");
  run.plan_text = header.dump();  // the probe's settings, device and notes
  run.provenance = provenance;
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo created, db.CreateRun(run));

  const auto add = [&](const std::string& workload, double size, const json& body,
                       std::map<std::string, std::string> settings) -> Status {
    store::PointRecord p;
    p.run_id = created.id;
    p.workload = workload;
    p.load_kind = "probe";
    p.load_value = size;
    p.source = store::source::kMeasured;
    p.key = store::PointKey(p.workload, p.load_kind, p.load_value, 0);
    p.settings = std::move(settings);
    p.settings["kind"] = "probe";
    p.summary_json = body.dump();
    FRONTIER_ASSIGN_OR_RETURN(int64_t id, db.AddPoint(p, {}));
    (void)id;
    return Status::Ok();
  };
  for (const auto& g : r.gemm)
    FRONTIER_RETURN_IF_ERROR(add("gemm/" + g.model + "/" + g.layer + "/" + GemmPrecisionName(g.precision),
                                 static_cast<double>(g.m), GemmJson(g),
                                 {{"m", std::to_string(g.m)},
                                  {"n", std::to_string(g.n)},
                                  {"k", std::to_string(g.k)},
                                  {"tuned_tflops", Fixed(g.TunedTflops(), 1)},
                                  {"default_tflops", Fixed(g.DefaultTflops(), 1)},
                                  {"tuned_fraction_of_peak", Fixed(g.TunedFraction(), 4)}}));
  for (const auto& s : r.stream)
    FRONTIER_RETURN_IF_ERROR(add("stream/" + s.kernel, static_cast<double>(s.bytes_per_array), StreamJson(s),
                                 {{"gbps", Fixed(s.Gbps(), 1)}, {"fraction_of_peak", Fixed(s.Fraction(), 4)}}));
  for (const auto& d : r.decode)
    FRONTIER_RETURN_IF_ERROR(add("decode/" + d.model, d.problem.batch, DecodeJson(d),
                                 {{"gbps", Fixed(d.Gbps(), 1)}, {"fraction_of_peak", Fixed(d.Fraction(), 4)}}));
  for (const auto& c : r.collectives)
    FRONTIER_RETURN_IF_ERROR(add("collective/" + c.op, c.result.bytes, CollectiveJson(c),
                                 {{"bus_gbps", Fixed(c.result.bus_gbps, 1)}}));
  return created;
}

Result<ProbeResult> LoadProbeRun(store::Store& db, int64_t run_id) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo info, db.GetRun(run_id));
  const auto kind = info.config.find("kind");
  if (kind == info.config.end() || kind->second != "probe")
    return InvalidArgument("run " + std::to_string(run_id) + " (" + info.Label() +
                           ") is not a probe run; `frontier db ls` shows runs, `frontier probe --db` stores one");
  json header;
  try {
    header = json::parse(info.plan_text);
  } catch (const json::exception&) {
    return InvalidArgument("run " + std::to_string(run_id) + ": its probe header is not JSON");
  }
  header["gemm"] = json::array();
  header["stream"] = json::array();
  header["decode"] = json::array();
  header["collectives"] = json::array();
  FRONTIER_ASSIGN_OR_RETURN(std::vector<store::PointRecord> points, db.ListPoints(run_id));
  for (const auto& p : points) {
    if (p.load_kind != "probe") continue;
    json body;
    try {
      body = json::parse(p.summary_json);
    } catch (const json::exception&) {
      return InvalidArgument("run " + std::to_string(run_id) + " point " + p.key + ": its figures are not JSON");
    }
    const std::string family = p.workload.substr(0, p.workload.find('/'));
    if (family == "gemm") header["gemm"].push_back(body);
    else if (family == "stream") header["stream"].push_back(body);
    else if (family == "decode") header["decode"].push_back(body);
    else if (family == "collective") header["collectives"].push_back(body);
  }
  return ProbeFromJson(header);
}

}  // namespace frontier::probe

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

// Precisions are written by name and parsed back.
Status Read(const json& obj, const char* key, const std::string& where, GemmPrecision* out) {
  std::string name;
  FRONTIER_RETURN_IF_ERROR(Read(obj, key, where, &name));
  FRONTIER_ASSIGN_OR_RETURN(*out, ParseGemmPrecision(name, where + "." + key));
  return Status::Ok();
}
Status Read(const json& obj, const char* key, const std::string& where, std::vector<GemmPrecision>* out) {
  std::vector<std::string> names;
  FRONTIER_RETURN_IF_ERROR(Read(obj, key, where, &names));
  for (const auto& name : names) {
    FRONTIER_ASSIGN_OR_RETURN(GemmPrecision p, ParseGemmPrecision(name, where + "." + key));
    out->push_back(p);
  }
  return Status::Ok();
}

template <typename T>
json ToJson(const T& v) {
  return json(v);
}
json ToJson(GemmPrecision p) { return GemmPrecisionName(p); }
json ToJson(const std::vector<GemmPrecision>& ps) {
  json names = json::array();
  for (GemmPrecision p : ps) names.push_back(GemmPrecisionName(p));
  return names;
}

// The stored fields of each record, listed once for both directions:
// kXFields(x, f) calls f(key, member) for each, in the order they are read
// (the first one that fails is the one named). What a record derives from
// them (throughputs, fractions of peak) is written beside them, not read.
constexpr auto kGemmFields = [](auto& g, auto&& f) {
  f("model", g.model);
  f("layer", g.layer);
  f("precision", g.precision);
  f("m", g.m);
  f("n", g.n);
  f("k", g.k);
  f("peak_tflops", g.peak_tflops);
  f("default_seconds", g.default_seconds);
  f("tuned_seconds", g.tuned_seconds);
  f("tuned_rank", g.tuned_rank);
  f("tuned_algo", g.tuned_algo);
  f("candidates", g.candidates);
};
constexpr auto kStreamFields = [](auto& s, auto&& f) {
  f("kernel", s.kernel);
  f("bytes_per_array", s.bytes_per_array);
  f("seconds", s.seconds);
  f("bytes_moved", s.bytes_moved);
  f("peak_gbps", s.peak_gbps);
};
constexpr auto kDecodeFields = [](auto& d, auto&& f) {
  f("model", d.model);
  f("batch", d.problem.batch);
  f("context", d.problem.context);
  f("heads", d.problem.heads);
  f("kv_heads", d.problem.kv_heads);
  f("head_dim", d.problem.head_dim);
  f("seconds", d.seconds);
  f("bytes_moved", d.bytes_moved);
  f("max_abs_error", d.max_abs_error);
  f("peak_gbps", d.peak_gbps);
};
constexpr auto kCollectiveFields = [](auto& c, auto&& f) {
  f("op", c.op);
  f("gpus", c.result.gpus);
  f("bytes", c.result.bytes);
  f("seconds", c.result.seconds);
  f("bus_gbps", c.result.bus_gbps);
};
constexpr auto kDeviceFields = [](auto& d, auto&& f) {
  f("name", d.name);
  f("backend", d.backend);
  f("arch", d.arch);
  f("devices", d.devices);
  f("multiprocessors", d.multiprocessors);
  f("memory_gib", d.memory_gib);
  f("library_versions", d.library_versions);
  f("gemm_precisions", d.gemm_precisions);
};

// The object of `record`'s fields as `fields` lists them.
template <typename T, typename Fields>
json WriteFields(const T& record, const Fields& fields) {
  json j = json::object();
  fields(record, [&](const char* key, const auto& v) { j[key] = ToJson(v); });
  return j;
}

// Reads `record`'s fields as `fields` lists them from `j` (named `where` in
// errors), stopping at the first that fails.
template <typename T, typename Fields>
Status ReadFields(const json& j, const std::string& where, const Fields& fields, T* record) {
  Status st;
  fields(*record, [&](const char* key, auto& v) {
    if (st.ok()) st = Read(j, key, where, &v);
  });
  return st;
}

json GemmJson(const GemmPoint& g) {
  json j = WriteFields(g, kGemmFields);
  j["default_tflops"] = g.DefaultTflops();
  j["tuned_tflops"] = g.TunedTflops();
  j["default_fraction_of_peak"] = g.DefaultFraction();
  j["tuned_fraction_of_peak"] = g.TunedFraction();
  return j;
}

// A stream or a decode point: both move bytes, at a bandwidth and a fraction of peak.
template <typename Point, typename Fields>
json BandwidthJson(const Point& p, const Fields& fields) {
  json j = WriteFields(p, fields);
  j["gbps"] = p.Gbps();
  j["fraction_of_peak"] = p.Fraction();
  return j;
}
json StreamJson(const StreamPoint& s) { return BandwidthJson(s, kStreamFields); }
json DecodeJson(const DecodePoint& d) { return BandwidthJson(d, kDecodeFields); }

Result<GemmPoint> GemmFromJson(const json& j, const std::string& where) {
  GemmPoint g;
  FRONTIER_RETURN_IF_ERROR(ReadFields(j, where, kGemmFields, &g));
  if (!(g.tuned_seconds > 0) || g.m < 1 || g.n < 1 || g.k < 1)
    return InvalidArgument(where + ": tuned_seconds, m, n and k must be positive");
  return g;
}

Result<StreamPoint> StreamFromJson(const json& j, const std::string& where) {
  StreamPoint s;
  FRONTIER_RETURN_IF_ERROR(ReadFields(j, where, kStreamFields, &s));
  return s;
}

Result<DecodePoint> DecodeFromJson(const json& j, const std::string& where) {
  DecodePoint d;
  FRONTIER_RETURN_IF_ERROR(ReadFields(j, where, kDecodeFields, &d));
  return d;
}

Result<CollectivePoint> CollectiveFromJson(const json& j, const std::string& where) {
  CollectivePoint c;
  c.result.ran = true;
  FRONTIER_RETURN_IF_ERROR(ReadFields(j, where, kCollectiveFields, &c));
  return c;
}

// The settings grouped by the probe they drive: GEMM (two lines), stream,
// decode, collectives.
json OptionsJson(const ProbeOptions& o) {
  return {{"tp", o.tp},
          {"tokens", o.tokens}, {"precisions", ToJson(o.precisions)},
          {"top_n", o.top_n}, {"iterations", o.iterations},
          {"stream_bytes", o.stream_bytes},
          {"decode_batch", o.decode_batch}, {"decode_context", o.decode_context},
          {"collective_bytes", o.collective_bytes}};
}

}  // namespace

nlohmann::json ProbeToJson(const ProbeResult& r) {
  json j;
  j["kind"] = "probe";
  j["hardware"] = r.hardware;
  j["device"] = WriteFields(r.device, kDeviceFields);
  j["models"] = r.models;
  j["options"] = OptionsJson(r.options);
  j["gemm"] = json::array();
  for (const auto& g : r.gemm) j["gemm"].push_back(GemmJson(g));
  j["stream"] = json::array();
  for (const auto& s : r.stream) j["stream"].push_back(StreamJson(s));
  j["decode"] = json::array();
  for (const auto& d : r.decode) j["decode"].push_back(DecodeJson(d));
  j["collectives"] = json::array();
  for (const auto& c : r.collectives) j["collectives"].push_back(WriteFields(c, kCollectiveFields));
  j["notes"] = r.notes;
  return j;
}

Result<ProbeResult> ProbeFromJson(const nlohmann::json& j) {
  if (!j.is_object() || j.value("kind", "") != "probe")
    return InvalidArgument("probe result: expected an object with \"kind\": \"probe\"");
  ProbeResult r;
  FRONTIER_RETURN_IF_ERROR(Read(j, "hardware", "probe", &r.hardware));
  if (!j.contains("device")) return InvalidArgument("probe.device is missing");
  FRONTIER_RETURN_IF_ERROR(ReadFields(j["device"], "device", kDeviceFields, &r.device));
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
  run.source = store::Source::kMeasured;
  run.config = {{store::kSystemKindKey, store::SystemKindName(store::SystemKind::kProbe)},
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
    p.load_kind = store::LoadKind::kProbe;
    p.load_value = size;
    p.source = store::Source::kMeasured;
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
    FRONTIER_RETURN_IF_ERROR(add("collective/" + c.op, c.result.bytes, WriteFields(c, kCollectiveFields),
                                 {{"bus_gbps", Fixed(c.result.bus_gbps, 1)}}));
  return created;
}

Result<ProbeResult> LoadProbeRun(store::Store& db, int64_t run_id) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo info, db.GetRun(run_id));
  const Result<store::SystemKind> kind = store::SystemKindOf(info.config);
  if (!kind.ok() || *kind != store::SystemKind::kProbe)
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
    if (p.load_kind != store::LoadKind::kProbe) continue;
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

// http_target.h: the Target (target.h) that sends requests over HTTP with the
// streaming client (client/stream_client.h), and what every HTTP target
// records of itself.
//
// Thread safety: as Target; one thread.
#pragma once

#include <memory>
#include <string>

#include "client/stream_client.h"
#include "loadgen/target.h"
#include "loadgen/text_answers.h"

namespace frontier::loadgen {

// source "measured", host HostName() (core/host_name.h), base_url, endpoint: what an HTTP
// target's Describe() records.
void DescribeHttp(const client::ClientOptions& options, RunResult* run);

class HttpTarget final : public Target, public TextAnswers {
 public:
  // InvalidArgument naming the flag for bad client options.
  static Result<std::unique_ptr<HttpTarget>> Create(const client::ClientOptions& options);

  std::string Name() const override { return "http"; }
  void Issue(int64_t id, const workload::RequestSpec& spec) override {
    client::StreamRequest r;
    r.id = id;
    r.prompt_token_ids = spec.prompt_token_ids;
    r.prompt_text = spec.prompt_text;
    r.max_tokens = spec.output_len;
    r.cancel_after_tokens = spec.cancel_after_tokens;
    r.keep_text = spec.want_output_ids;  // answers come back as text (TakeAnswerText)
    client_->Start(r);
  }
  void Poll(Nanos deadline, CompletionSink& sink) override {
    client_->Poll(deadline, [&sink](RequestRecord&& r) { sink.OnComplete(std::move(r)); });
  }
  void AbortAll(const char* reason, CompletionSink& sink) override {
    client_->AbortAll(reason, [&sink](RequestRecord&& r) { sink.OnComplete(std::move(r)); });
  }
  // Cancellation closes the request's connection (stream_client.h): after
  // its K-th output token, or at once on Cancel.
  bool SupportsCancel() const override { return true; }
  bool Cancel(int64_t id, CompletionSink& sink) override {
    return client_->Cancel(id, [&sink](RequestRecord&& r) { sink.OnComplete(std::move(r)); });
  }
  size_t InFlight() const override { return client_->InFlight(); }
  std::string ServedModel() const override { return client_->served_model(); }
  void Describe(RunResult* run) const override { DescribeHttp(options_, run); }

  std::string TakeAnswerText(int64_t id) override { return client_->TakeText(id); }

  client::StreamClient& client() { return *client_; }

 private:
  HttpTarget(std::unique_ptr<client::StreamClient> c, client::ClientOptions o)
      : client_(std::move(c)), options_(std::move(o)) {}
  std::unique_ptr<client::StreamClient> client_;
  client::ClientOptions options_;
};

inline Result<std::unique_ptr<HttpTarget>> HttpTarget::Create(const client::ClientOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(auto c, client::StreamClient::Create(options));
  return std::unique_ptr<HttpTarget>(new HttpTarget(std::move(c), options));
}

}  // namespace frontier::loadgen

// `frontier dashboard`: browse, compare and watch the results database in the browser.
#include <csignal>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/version.h"
#include "dashboard/api.h"
#include "dashboard/data.h"
#include "dashboard/server.h"
#include "report/hardware_facts.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

dashboard::DashboardServer* g_server = nullptr;

void OnSignal(int) {
  if (g_server) g_server->RequestStop();
}

int RunDashboard(int argc, char** argv) {
  CLI::App app("Browse, compare and watch the results database in a browser: runs, frontiers, "
               "points, regressions, trends and a running sweep, served by this process",
               "dashboard");
  std::string db = store::DefaultLocation();
  dashboard::ServerOptions so;
  bool allow_import = false;
  PriceFlags price_flags;
  app.add_option("--db", db, std::string(kDbHelp) + "; opened read-only unless --allow-import")
      ->capture_default_str();
  app.add_option("--host", so.host, "Address to bind; beyond loopback needs --token")
      ->capture_default_str();
  app.add_option("--port", so.port, "Port (0: any free one, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app.add_option("--token", so.token,
                 "Secret every request must carry (Authorization: Bearer, or the cookie set by "
                 "opening /?token=SECRET once)");
  app.add_flag("--allow-import", allow_import,
               "Allow uploading vLLM / InferenceX result files from the browser (opens --db for writing)");
  AddPriceFlags(app, price_flags);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  auto prices = report::ParsePriceOverrides(price_flags.prices);
  if (!prices.ok()) return Fail("dashboard", prices.status());
  if (Status v = dashboard::ValidateServerOptions(so); !v.ok()) return Fail("dashboard", v);

  // Read-only unless uploads are allowed; either way a missing --db is an error, never a new file.
  auto st = store::OpenStore(db, allow_import ? store::OpenMode::kReadWrite : store::OpenMode::kReadOnly);
  if (!st.ok()) return Fail("dashboard", st.status());
  dashboard::DashboardData data(**st, [&](const std::string& hw) {
    return report::LookupHardwareFacts(hw, price_flags.tier, *prices);
  });
  if (Status s = data.Refresh(); !s.ok()) return Fail("dashboard", s);
  dashboard::Api api(data, {db, allow_import, kVersion});
  auto server = dashboard::DashboardServer::Create(so, api);
  if (!server.ok()) return Fail("dashboard", server.status());
  std::cout << dashboard::ListeningText(so, (*server)->port(), data.runs().size(), db, allow_import) << std::flush;
  g_server = server->get();
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Status run = (*server)->Run();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_server = nullptr;
  if (!run.ok()) return Fail("dashboard", run);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(dashboard, "Browse, compare and watch results in the browser",
                          frontier::cli::RunDashboard);

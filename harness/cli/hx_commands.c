/* SPDX-License-Identifier: MIT */
/*
 * hx_commands: the table of `scalacn` commands with their help texts.
 */
#include <stdio.h>
#include <string.h>

#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"
#include "harness/fit/hx_fit.h"
#include "harness/replay/hx_replay.h"

const struct hx_command hx_commands[] = {
	{ "run", "run a qualification campaign from a plan (walls, criteria)",
	  "usage: scalacn run PLAN [--testbed FILE] [--db FILE] [--resume] [--jobs N]\n"
	  "                   [--json] [--quiet] [--junit FILE] [--dry-run]\n\n"
	  "Runs a campaign: baseline per verb and metric, enumeration of the plan's component\n"
	  "space, wall search along every scale dimension (geometric sweep, then bisection to\n"
	  "the knee), then the plan's qualification criteria. Every trial is committed to the\n"
	  "database the moment it finishes; trials already stored (same point, repeat and\n"
	  "testbed) are reused, never measured twice.\n\n"
	  "  --testbed FILE  testbed description (default: the plan's 'testbed:')\n"
	  "  --db FILE       results database (default: scalacn.db)\n"
	  "  --resume        continue the newest campaign of this plan on this testbed\n"
	  "  --jobs N        trials at once, one per testbed slot (1..64; a testbed of one\n"
	  "                  host pair runs one at a time; see docs/scale-out.md)\n"
	  "  --json          print the outcome as JSON on stdout\n"
	  "  --quiet         no progress on stderr\n"
	  "  --junit FILE    write one JUnit testcase per criterion (and per wall in range)\n"
	  "  --dry-run       print every command the testbed would run per trial, in order,\n"
	  "                  and run none (testbeds that run commands: kind perftest)\n\n"
	  "Exit: 0 qualified, 1 a criterion failed or a wall lies inside the qualified range\n"
	  "(or the budget ran out), 2 usage/config error, 3 testbed error, 130 interrupted\n"
	  "(resume with --resume). NO_COLOR turns colour off.\n",
	  hx_cmd_run },
	{ "enumerate", "count (and list) the valid architecture models of a plan",
	  "usage: scalacn enumerate PLAN [--list] [--limit N] [--json]\n\n"
	  "Prints the brute-force size of the plan's component space, the valid architecture\n"
	  "models, the models pruned per reason (loop, unreachable table, black hole, semantics)\n"
	  "and the growth of valid flow paths (k*n^2) against unconstrained table contents.\n"
	  "  --list      print every valid model (--limit N: the first N)\n"
	  "  --json      machine-readable output\n",
	  hx_cmd_enumerate },
	{ "measure", "run one trial on a testbed and print its sample",
	  "usage: scalacn measure --testbed FILE [--verb send|write|read] [--size BYTES]\n"
	  "                       [--metric bw|lat] [--set DIMENSION=LEVEL ...] [--seed N] [--json]\n"
	  "                       [--no-repair]\n\n"
	  "Every dimension not set is at its neutral level (see 'scalacn dimensions').\n"
	  "A point with more masks or encap contexts than flows gets the flows it needs, as in\n"
	  "'scalacn run' (a note on stderr says so); --no-repair refuses such a point instead.\n"
	  "Levels take K and M suffixes (8K = 8192). Example:\n"
	  "  scalacn measure --testbed examples/testbeds/sim-cx7.yaml --verb send --size 8M \\\n"
	  "      --set server.decap_masks=20 --json\n",
	  hx_cmd_measure },
	{ "dimensions", "list the dimensions of a point, their levels and neutral levels",
	  "usage: scalacn dimensions [--testbed FILE]\n", hx_cmd_dimensions },
	{ "status", "list the campaigns in a results database",
	  "usage: scalacn status [--db FILE]\n", hx_cmd_status },
	{ "trials", "list the trials in a results database",
	  "usage: scalacn trials [--db FILE] [--campaign ID] [--limit N] [--json]\n", hx_cmd_trials },
	{ "export-csv", "write the trials of a database as CSV",
	  "usage: scalacn export-csv [--db FILE] [--campaign ID] [--output FILE]\n\n"
	  "One row per trial, one column per dimension, counters as JSON in the last column.\n",
	  hx_cmd_export_csv },
	{ "analyze", "re-run the causal analysis on stored trials",
	  "usage: scalacn analyze [--db FILE] [--campaign ID] [--testbed FILE]\n"
	  "                       [--strategy cct|brute|anneal] [--json]\n\n"
	  "Rebuilds a campaign's baselines and walls from its stored trials, runs the causal\n"
	  "analysis (symptoms -> local sensitivity analysis -> permutation removal -> causes)\n"
	  "and replaces the campaign's symptoms and causes in the database. Trials already\n"
	  "stored are reused; the testbed is needed only for points not yet measured.\n\n"
	  "  --db FILE        results database (default: scalacn.db)\n"
	  "  --campaign ID    campaign to analyse (default: the newest done, interrupted or\n"
	  "                   running one; a failed campaign is never the default)\n"
	  "  --testbed FILE   testbed for missing points (default: the campaign's)\n"
	  "  --strategy S     cct (default: the plan's analysis.strategy), brute or anneal\n"
	  "  --json           print the causes as JSON\n",
	  hx_cmd_analyze },
	{ "causes", "print the causes found by the causal analysis",
	  "usage: scalacn causes [--db FILE] [--campaign ID] [--json]\n\n"
	  "One line per cause: members (one cause may need several components at once), the\n"
	  "level where its wall starts, effect with 95% interval, confidence (share of removal\n"
	  "orders that kept it), symptom class (S1..S8 or unclassified) and evidence trials.\n",
	  hx_cmd_causes },
	{ "explain", "show the evidence behind a cause (or every cause of a campaign)",
	  "usage: scalacn explain [--db FILE] [--campaign ID] [--json] [CAUSE_INDEX]\n\n"
	  "For each cause of a campaign (or the one numbered CAUSE_INDEX, the # column of\n"
	  "'scalacn causes'; suspects included): the stress point and where the cause was\n"
	  "isolated, the baseline, each dimension's normalised sensitivity with its 95%\n"
	  "interval (candidate or not, and why), each removal order with what each removal did\n"
	  "(cured, persisted, no change beyond noise: the numbers), the points with and without\n"
	  "the cause, the replicate, whether it is supported and why not, and the trial ids\n"
	  "behind each statement. Reads the database only.\n\n"
	  "  --db FILE        results database (default: scalacn.db)\n"
	  "  --campaign ID    campaign (default: the newest)\n"
	  "  --json           the same as JSON: [{index, id, ..., evidence: {...}}]\n",
	  hx_cmd_explain },
	{ "compare", "compare the cct, brute and anneal strategies on a plan",
	  "usage: scalacn compare PLAN [--testbed FILE] [--db FILE] [--json]\n\n"
	  "Runs brute force (full factorial), cct and simulated annealing on the same testbed\n"
	  "and trial cache, and prints side by side: points, trials, testbed-hours, causes\n"
	  "found, false causes and causes missed (brute force's causes are the reference), and\n"
	  "each strategy's cost relative to brute force. Each strategy is charged for every\n"
	  "trial it requested, even when another strategy measured it first.\n",
	  hx_cmd_compare },
	{ "fit", "fit per-RNIC performance models from stored trials",
	  "usage: scalacn fit [--db FILE] [--rnic MODEL] [--verb V] [--metric bw|lat]\n"
	  "                   [--form F[,F...]] [--where DIM=LEVEL ...] [--inputs X[,Y]]\n"
	  "                   [--seed N] [--json]\n\n"
	  "Fits and stores one model per (RNIC model, verb, metric) of the trials in the database.\n"
	  "Inputs by default (the ScalaCN paper's): x = masks on the local (client) host =\n"
	  "client.encap_masks + client.decap_masks, y = masks on the remote (server) host =\n"
	  "server.encap_masks + server.decap_masks; --inputs names others (the dimensions the\n"
	  "causes name, e.g. server.decap_masks,flows), which the exported model file keeps so\n"
	  "that an agent feeds each by name. Only ok trials at the most common setting of the other dimensions\n"
	  "(flows, msg_size, ...) and firmware are used; the trials of one (x, y) count as one\n"
	  "point, their median. Forms: rbf2, service2, plane, cap2 (bw); plane, rbf2, service2,\n"
	  "walk2 (lat);\n"
	  "chosen by AICc, cross-validation breaking ties. Prints per model: form, parameters with\n"
	  "standard errors, R^2, RMSE, held-out bias (max, mean), why the form won, the domain.\n\n"
	  "  --db FILE      results database (default: scalacn.db)\n"
	  "  --rnic MODEL   only this RNIC model (as campaigns recorded it)\n"
	  "  --verb V       only this verb (send, write, read)\n"
	  "  --metric M     only bw or lat\n"
	  "  --form F,...   candidate forms (rbf2, plane, service2, cap2, walk2); a single\n"
	  "                 form is fitted alone, which works with few points (a plane\n"
	  "                 through 4)\n"
	  "  --seed N       seed of the fit's starts and cross-validation folds (default 1)\n"
	  "  --where D=L    only trials whose point has dimension D at level L (repeatable;\n"
	  "                 e.g. --where msg_size=2 for imported perftest -a logs)\n"
	  "  --inputs X,Y   the model's inputs: dimension names, or client.masks / server.masks\n"
	  "                 (a host's encap + decap masks); default client.masks,server.masks;\n"
	  "                 'causes': per (verb, metric) the dimensions its newest campaign's\n"
	  "                 causes name (the plan's model: phase measures a design over them)\n"
	  "  --json         print the stored models as JSON\n\n"
	  "Exit: 0 models stored, 2 nothing to fit or a fit failed.\n",
	  hx_cmd_fit },
	{ "models", "list fitted models",
	  "usage: scalacn models [--db FILE] [--rnic MODEL] [--json]\n", hx_cmd_models },
	{ "predict", "predict a metric from a fitted model",
	  "usage: scalacn predict --model ID --masks-local X --masks-remote Y [--db FILE] [--json]\n\n"
	  "Prints the prediction of stored model ID at X masks on the local (client) host and Y on\n"
	  "the remote (server) host, with its 95% prediction interval. Outside the fitted domain it\n"
	  "warns on stderr (an extrapolation) and still exits 0.\n",
	  hx_cmd_predict },
	{ "export", "export fitted models for the runtime optimiser",
	  "usage: scalacn export --rnic MODEL -o FILE [--db FILE] [--firmware FW]\n"
	  "                      [--format sqlite|yaml] [--force] [--sign KEY]\n\n"
	  "Writes the newest valid model per (verb, metric) of one RNIC model (valid: it converged,\n"
	  "each input varied, its standard errors are finite, its held-out bias is at most 10%;\n"
	  "'scalacn models' says why one is not; --force exports the newest one anyway; the file\n"
	  "names the inputs, which an agent feeds by name). sqlite (default): the\n"
	  "self-contained model file agents load with opt_model_load (libscalacn-opt), checksum\n"
	  "inside. yaml: a rendering for people. Knee models are not exported to agents (the\n"
	  "optimiser's knee is another shape). --sign KEY also writes FILE.sig, an Ed25519\n"
	  "signature with the secret key KEY (scalacn keygen): agents that load with\n"
	  "opt_model_load_signed and the public key refuse unsigned or altered files.\n",
	  hx_cmd_export },
	{ "keygen", "make a key pair for signing model files",
	  "usage: scalacn keygen -o KEY\n\n"
	  "Writes a new Ed25519 key pair: KEY (the secret key, mode 0600: keep it with whoever\n"
	  "exports models) and KEY.pub (the public key agents verify with). Neither may exist.\n",
	  hx_cmd_keygen },
	{ "gen-trace", "write a synthetic flow trace",
	  "usage: scalacn gen-trace --flows N --popularity zipf:S|uniform --duration SECONDS\n"
	  "                         --churn RATE --seed N -o FILE [--masks M] [--pps P]\n\n"
	  "Writes a flow trace (CSV: time,flow,mask,packets; one row per flow and second, or\n"
	  "per flow segment when it arrives or departs inside a second). N concurrent flows\n"
	  "share P packets per second (default 1e6) by popularity (Zipf rank S, or uniform);\n"
	  "RATE flow replacements per second (a Poisson process: a random flow departs, a new\n"
	  "one arrives in its popularity slot, on a mask drawn from M, default 64). Same seed,\n"
	  "same file. -o - writes to stdout.\n",
	  hx_cmd_gen_trace },
	{ "replay", "replay a flow trace through the runtime optimiser and baselines",
	  "usage: scalacn replay --trace FILE [--model FILE] [--rnic MODEL] [--testbed FILE]\n"
	  "                      [--hyper N] [--admission HITS] [--idle-timeout S] [--masks M]\n"
	  "                      [--verb V] [--seed N] [--emc N]\n\n"
	  "Replays a flow trace (CSV: time,flow[,mask],packets) second by second through the\n"
	  "optimiser (model file from 'scalacn export'; without one it plans every tick) and\n"
	  "three baselines: static insertion order, OVS-style ranking of masks by hits every\n"
	  "1 s, and an exact-match cache with 1/100 insertion (--emc N entries, default 8192;\n"
	  "--emc equal to --hyper, default 1024, compares caches of one capacity). Prints per\n"
	  "policy the masks probed per packet (mean, p99), rule updates per second,\n"
	  "front-cache (hyper mask / EMC) hit rate and CPU per tick, and the optimiser's\n"
	  "memory per rule. With --testbed\n"
	  "each policy's final table (flows of the last 10 s) is programmed on the testbed\n"
	  "(server receive path) and its bandwidth and latency are printed side by side.\n"
	  "Without a mask column masks come from the flow keys (--masks M, default 64).\n",
	  hx_cmd_replay },
	{ "perftest", "parse or import saved perftest output",
	  "usage: scalacn perftest parse FILE... [--json] [--gbits]\n"
	  "       scalacn perftest import FILE... --db DB [--gbits] [--rnic MODEL]\n\n"
	  "parse: prints what scalacn reads from saved perftest stdout (or --out_json files):\n"
	  "the test, verb, header fields and one row per message size, bandwidth in Gb/s\n"
	  "(MiB/s converted), latency in usec as perftest measured it (half the round trip\n"
	  "for send/write, the full round trip for read). --gbits: JSON files were written with\n"
	  "--report_gbits (the JSON does not say).\n"
	  "import: stores every row as a trial of the campaign 'perftest-import' (created once\n"
	  "per database) with verb, metric, msg_size, qps, tx_depth, mtu and iterations as\n"
	  "levels, plus client/server encap/decap masks when the file name follows the ScalaCN\n"
	  "artifact (cen_X_cde_Y_sen_Z_sde_W_...). Importing a file twice stores nothing new.\n",
	  hx_cmd_perftest },
	{ "report", "write a campaign's report: an HTML page with plots (or md, json)",
	  "usage: scalacn report [--db FILE] [--campaign ID] -o DIR [--format html|md|json]\n"
	  "                      [--baseline CAMPAIGN]\n\n"
	  "Writes a self-contained folder DIR: index.html (md: report.md, json: report.json) and\n"
	  "its SVG plots (PLplot). The page needs no network. Sections: summary (RNIC, firmware,\n"
	  "testbed, plan, dates, testbed-hours of the budget, each criterion's verdict with its\n"
	  "numbers), walls (the metric against each swept dimension, the wall marked, error bars\n"
	  "from the repeats, the baseline band), causes and suspects (sensitivity chart and the\n"
	  "removal orders per cause), models (fitted curve against the measured points,\n"
	  "residuals, R^2, held-out bias, why the form won, a plane fitted beside it), search\n"
	  "cost (trials and testbed-hours per phase, the brute-force size). A campaign that did\n"
	  "not finish still renders and says what is missing. Reads the database only.\n\n"
	  "  --db FILE          results database (default: scalacn.db)\n"
	  "  --campaign ID      campaign (default: the newest that did not fail)\n"
	  "  -o DIR             the folder to write (made when missing)\n"
	  "  --format F         html (default), md or json\n"
	  "  --baseline C       add a diff section against campaign C (ID, DB:ID or DB)\n",
	  hx_cmd_report },
	{ "diff", "compare two campaigns: walls moved, causes gained or lost, criteria",
	  "usage: scalacn diff A B [--db FILE] [--fail-on LIST] [--junit FILE] [--json]\n\n"
	  "Compares campaign B with campaign A (each ID in --db, DB:ID, or DB for its newest\n"
	  "campaign): walls that moved (level, class, or effect beyond the baselines' noise),\n"
	  "appeared or went; supported causes gained or lost; criteria whose verdict changed;\n"
	  "models of the same verb and metric predicted at A's measured points.\n\n"
	  "  --db FILE        results database of plain IDs (default: scalacn.db)\n"
	  "  --fail-on LIST   exit 1 when a change of a listed kind is found: wall-moved\n"
	  "                   (also walls gained or lost), new-cause, lost-cause, criterion,\n"
	  "                   model (a prediction outside A's 95% interval)\n"
	  "  --junit FILE     JUnit XML: one testcase per kind of --fail-on\n"
	  "  --json           the changes as JSON\n\n"
	  "Exit: 0 no change --fail-on names, 1 one was found, 2 usage or store error.\n",
	  hx_cmd_diff },
	{ NULL, NULL, NULL, NULL },
};

const struct hx_command *hx_command_find(const char *name)
{
	for (const struct hx_command *c = hx_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

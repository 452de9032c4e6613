/* SPDX-License-Identifier: MIT */
/*
 * tb_sim: the simulated testbed backend (testbeds/sim). The dispatcher (testbeds/tb.c) uses
 * tb_sim_ops; nothing else of the simulator is public, and struct tb for sim stays opaque.
 *
 * Testbed file (YAML):  kind: sim
 *                       profile: cx6            # a shipped profile, or a path relative to
 *                                               # this file (../profiles/my-nic.yaml)
 *                       name: lab-sim-a         # optional, part of the identity
 *
 * Test hooks below exist for tests/test-sim.c only: they read what the simulated NIC
 * computed for a flow, which a real testbed cannot show, so the harness must not use them.
 */
#ifndef TB_SIM_H
#define TB_SIM_H

#include <stdint.h>

#include "testbeds/tb.h"

extern const struct tb_ops tb_sim_ops;

/* Test hook: probes the simulated NIC charges FLOW (0-based) on host H, direction D after
 * the last apply; -1 when out of range or TB is not a sim testbed. */
long tb_sim_test_probes(const struct tb *tb, enum gen_host h, enum gen_dir d, uint32_t flow);

#endif

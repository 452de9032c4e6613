/* SPDX-License-Identifier: MIT */
/*
 * test-report-render: the quickstart's report opened in headless Chromium (Debian package
 * chromium; .ci/run installs it; without it the test is skipped, exit 77, saying so). A
 * checker page beside the report loads it in a frame and counts the images that did not
 * load; Chromium's log must hold no console message of the page (it has no script: any
 * message is an error), and the screenshot of the page is saved (a PNG). The checker is
 * shown to catch a missing image on a copy of the report with one plot removed, and the log
 * check a console error of a page that logs one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_util.h"
#include "report-util.h"

#define CHROMIUM "/usr/bin/chromium"

static const char checker[] =
	"<!DOCTYPE html><html><head><title>check</title></head><body>\n"
	"<iframe id=\"f\" src=\"%s/index.html\" width=\"1200\" height=\"900\"></iframe>\n"
	"<script>\n"
	"var f = document.getElementById('f');\n"
	"f.onload = function () {\n"
	"  var out = '';\n"
	"  try {\n"
	"    var imgs = f.contentDocument.images, bad = [];\n"
	"    for (var i = 0; i < imgs.length; i++)\n"
	"      if (!imgs[i].complete || imgs[i].naturalWidth === 0)\n"
	"        bad.push(imgs[i].getAttribute('src'));\n"
	"    out = 'images=' + imgs.length + ' broken=' + bad.length + ' [' + bad.join(' ') + ']';\n"
	"  } catch (e) { out = 'exception ' + e; }\n"
	"  var p = document.createElement('pre'); p.id = 'result'; p.textContent = out;\n"
	"  document.body.appendChild(p);\n"
	"};\n"
	"</script></body></html>\n";

struct ctx {
	char dir[64], db[256];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char out[300];
	const char *args[] = { "report", "--db", c->db, "-o", out, NULL };

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/q.db", c->dir);
	snprintf(out, sizeof(out), "%s/rep", c->dir);
	if (rpt_quickstart(c->db, NULL) != 1)
		return -1;
	*state = c;
	return rpt_scalacn(args, NULL);
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	e2e_rmdir(c->dir);
	free(c);
	return 0;
}

/* Chromium on file URL URL with EXTRA options; stdout into *OUT, and whether its log had a
 * console message. */
static int chromium(const struct ctx *c, const char *extra, const char *url, char **out,
		    bool *console)
{
	char cmd[2048], log[300], *text;
	int st;

	snprintf(log, sizeof(log), "%s/chromium.log", c->dir);
	snprintf(cmd, sizeof(cmd), "timeout 120 " CHROMIUM " --headless --no-sandbox --disable-gpu "
		 "--user-data-dir='%s/profile' --allow-file-access-from-files --enable-logging=stderr "
		 "--v=0 --virtual-time-budget=5000 %s 'file://%s' 2>'%s'", c->dir, extra, url, log);
	st = rpt_shell(cmd, out);
	text = e2e_read_file(log);
	*console = text && strstr(text, ":CONSOLE");
	if (*console && !strstr(url, "noisy"))
		print_message("chromium logged:\n%s\n", text);
	free(text);
	return st;
}

/* The checker's verdict on the report in folder REP (relative to the test folder). */
static char *check(const struct ctx *c, const char *rep, bool *console)
{
	char page[300], text[sizeof(checker) + 64], *dom = NULL, *res;

	snprintf(page, sizeof(page), "%s/check-%s.html", c->dir, rep);
	snprintf(text, sizeof(text), checker, rep);
	assert_int_equal(e2e_write_file(page, text), 0);
	assert_int_equal(chromium(c, "--dump-dom", page, &dom, console), 0);
	res = strstr(dom, "<pre id=\"result\">");
	res = res ? strdup(res) : strdup("no result: the checker did not run");
	free(dom);
	return res;
}

static void test_every_image_loads(void **state)
{
	struct ctx *c = *state;
	bool console;
	char *res = check(c, "rep", &console);

	if (!strstr(res, "images=4 broken=0 []"))
		fail_msg("checker: %s", res);
	assert_false(console);
	free(res);
}

static void test_checker_catches_a_missing_image(void **state)
{
	struct ctx *c = *state;
	char cmd[600], *res;
	bool console;

	snprintf(cmd, sizeof(cmd), "cp -r '%s/rep' '%s/broken' && rm '%s/broken/wall-2.svg'",
		 c->dir, c->dir, c->dir);
	assert_int_equal(rpt_shell(cmd, NULL), 0);
	res = check(c, "broken", &console);
	if (!strstr(res, "images=4 broken=1 [wall-2.svg]"))
		fail_msg("checker: %s", res);
	free(res);
}

/* The console check sees a page's error (so a report that logged one would fail). */
static void test_console_errors_are_seen(void **state)
{
	struct ctx *c = *state;
	char page[300], *dom = NULL;
	bool console;

	snprintf(page, sizeof(page), "%s/noisy.html", c->dir);
	assert_int_equal(e2e_write_file(page, "<!DOCTYPE html><html><body><script>"
					"console.error('boom')</script></body></html>\n"), 0);
	assert_int_equal(chromium(c, "--dump-dom", page, &dom, &console), 0);
	assert_true(console);
	free(dom);
}

static void test_screenshot(void **state)
{
	struct ctx *c = *state;
	char shot[300], opt[400], page[300], *png;
	bool console;

	snprintf(shot, sizeof(shot), "%s/report.png", c->dir);
	snprintf(opt, sizeof(opt), "--hide-scrollbars --window-size=1200,2400 --screenshot='%s'",
		 shot);
	snprintf(page, sizeof(page), "%s/rep/index.html", c->dir);
	assert_int_equal(chromium(c, opt, page, NULL, &console), 0);
	assert_false(console);
	assert_non_null(png = e2e_read_file(shot));
	assert_memory_equal(png, "\x89PNG", 4);
	free(png);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_image_loads),
		cmocka_unit_test(test_checker_catches_a_missing_image),
		cmocka_unit_test(test_console_errors_are_seen),
		cmocka_unit_test(test_screenshot),
	};

	if (access(CHROMIUM, X_OK) != 0) {
		printf("skipped: no %s (Debian package chromium; .ci/run installs it)\n", CHROMIUM);
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}

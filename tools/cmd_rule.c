/*
 * arbiter rule / arbiter note - an arbiter's rulings (void, amend, stands)
 * and notes.  Rulings never rewrite the record: they are events of their
 * own that replay applies "as ruled" (docs/rules/yahchain.md, "Rulings").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage_rule(FILE *f)
{
    fprintf(f,
        "usage: arbiter rule --match ID void N --reason TEXT\n"
        "       arbiter rule --match ID amend N VERB PLAYER [ARG...] "
        "--reason TEXT\n"
        "       arbiter rule --match ID stands VERB PLAYER [ARG...] "
        "--reason TEXT\n"
        "       arbiter rule --match ID note TEXT...\n"
        "  (each also takes [--expect N] [--cid ID] [connection options])\n\n"
        "Records an arbiter's ruling and prints 'seq N hash <hex>':\n"
        "  void N     event N no longer counts\n"
        "  amend N    event N is replaced by this move\n"
        "  stands     this move breaks a rule but stands; it is flagged\n"
        "  note       free text, no effect on the state (a scorer may add\n"
        "             one too: 'arbiter note')\n"
        "A ruling that would make a later move illegal is refused, naming\n"
        "that move: rule on the later move first.  Rulings need a reason\n"
        "and an arbiter's token.\n\n"
        "options:\n"
        "  --match ID      the match\n"
        "  --reason TEXT   why (required for void, amend and stands)\n"
        "  --expect N      refuse unless the match is at event N\n"
        "  --cid ID        your id for this event (a retry returns the\n"
        "                  original seq)\n"
        "  --              ends the options\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

static void
usage_note(FILE *f)
{
    fprintf(f,
        "usage: arbiter note --match ID [--expect N] [--cid ID]\n"
        "                    [connection options] TEXT...\n\n"
        "Records a note (free text, no effect on the state) and prints\n"
        "'seq N hash <hex>'.  The words of TEXT are joined by spaces.  Needs\n"
        "a scorer's or an arbiter's token.\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

/* note_only: `arbiter note`, whose words are all text. */
static int
run(int argc, char **argv, const char *cmd, int note_only)
{
    cli_net_t    n;
    cli_append_t a;
    arb_buf_t    text = ARB_BUF_INIT;
    const char  *expect = NULL, *reason = NULL, *sub;
    char       **words;
    size_t       nw, k, first;
    int          status;
    void       (*usage)(FILE *) = note_only ? usage_note : usage_rule;
    cli_optdef_t opts[] = {
        { "--match", CLI_ARG_STR, &a.match },
        { "--expect", CLI_ARG_STR, &expect },
        { "--cid", CLI_ARG_STR, &a.cid },
        { "--reason", CLI_ARG_STR, &reason },   /* not for a note */
        { NULL, 0, NULL }
    };
    cli_args_t ar = { .cmd = cmd, .usage = usage, .opts = opts, .net = &n };

    memset(&a, 0, sizeof(a));
    cli_net_init(&n, cmd);
    if (note_only)
        opts[3].name = NULL;
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        goto done;
    status = CLI_ERROR;
    words = ar.pos;
    nw = (size_t)ar.npos;
    if (a.match == NULL) {
        fprintf(stderr, "arbiter %s: --match is required\n", cmd);
        usage(stderr);
        goto done;
    }
    sub = note_only ? "note" : nw > 0 ? words[0] : "";
    first = note_only ? CLI_OK : CLI_DIFFERS;
    if (strcmp(sub, "note") == 0) {
        if (nw <= first || reason != NULL) {
            fprintf(stderr, "arbiter %s: %s\n", cmd, reason != NULL
                    ? "a note takes no --reason: its words are the text"
                    : "a note needs its text");
            goto done;
        }
        for (k = first; k < nw; k++) {
            if (k > first)
                arb_buf_putc(&text, ' ');
            arb_buf_puts(&text, words[k]);
        }
        if (arb_buf_cstr(&text) == NULL) {
            fprintf(stderr, "arbiter %s: out of memory\n", cmd);
            goto done;
        }
        a.text = text.data;
    } else if (strcmp(sub, "void") == 0 || strcmp(sub, "amend") == 0
               || strcmp(sub, "stands") == 0) {
        int targeted = strcmp(sub, "stands") != 0;
        /* void N | amend N VERB PLAYER... | stands VERB PLAYER... */
        if ((sub[0] == 'v' && nw != 2) || (sub[0] == 'a' && nw < 4)
            || (sub[0] == 's' && nw < 3)) {
            fprintf(stderr, "arbiter %s: %s\n", cmd, sub[0] == 'v'
                    ? "void N --reason TEXT" : sub[0] == 'a'
                    ? "amend N VERB PLAYER [ARG...] --reason TEXT"
                    : "stands VERB PLAYER [ARG...] --reason TEXT");
            goto done;
        }
        /* The transcript format (docs/TRANSCRIPT.md) has no ruling without
         * a reason, so the record could not be written out without one. */
        if (reason == NULL) {
            fprintf(stderr, "arbiter %s: a ruling needs --reason TEXT\n",
                    cmd);
            goto done;
        }
        if (targeted) {
            if (cli_parse_u64(cmd, sub, words[1], &a.target) != 0)
                goto done;
            a.has_target = 1;
        }
        if (sub[0] != 'v') {
            a.move = words + 1 + targeted;
            a.nmove = nw - 1 - (size_t)targeted;
        }
        a.text = reason;
    } else {
        fprintf(stderr, "arbiter %s: %s%s%s: void, amend, stands or note\n",
                cmd, nw ? "no ruling '" : "which ruling?", nw ? sub : "",
                nw ? "'" : "");
        usage(stderr);
        goto done;
    }
    a.kind = sub;
    if (expect != NULL) {
        if (cli_parse_u64(cmd, "--expect", expect, &a.expect) != 0)
            goto done;
        a.has_expect = 1;
    }
    if (cli_net_connect(&n) != 0)
        goto done;
    status = cli_net_append(&n, &a);
done:
    cli_net_close(&n);
    arb_buf_free(&text);
    return status;
}

int
cmd_rule(int argc, char **argv)
{
    return run(argc, argv, "rule", 0);
}

int
cmd_note(int argc, char **argv)
{
    return run(argc, argv, "note", 1);
}

/*
 * http_tourn.c - a tournament's board and standings over HTTP
 * (docs/HTTP.md, docs/TOURNAMENT.md): GET /api/t/<id>/board and
 * /api/t/<id>/standings[?format=csv], the JSON (or CSV) of the protocol's
 * board and standings ops, from committed events.
 */
#include <string.h>

#include "core/err.h"
#include "daemon/http.h"

void
arb_http_api_tourn(arb_http_req_t *q, const char *id, int board)
{
    arb_buf_t out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    char      fmt[8];
    int       json = 1, rc;

    if (arb_http_params_only(q, "format", NULL) != 0)
        goto done;
    rc = arb_http_param(q, "format", fmt, sizeof(fmt));
    if (rc < 0)
        goto done;
    if (rc == 1 && (board || strcmp(fmt, "csv") != 0)
        && strcmp(fmt, "json") != 0) {
        arb_http_error(q->req, 400, "format", "format is json%s",
                       board ? "" : " or csv");
        goto done;
    }
    json = rc == 0 || strcmp(fmt, "json") == 0;
    rc = arb_tourn_read(q->srv, id, board, json, &out, &why);
    if (rc == ARB_ENOTFOUND || rc == ARB_EINVAL)
        arb_http_error(q->req, 404, "tournament", "%s", arb_buf_cstr(&why));
    else if (rc != 0)
        arb_http_error(q->req, 500, "replay", "%s", arb_buf_cstr(&why));
    else
        arb_http_send(q->req, json ? "application/json; charset=utf-8"
                                   : "text/csv; charset=utf-8",
                      out.data, out.len);
done:
    arb_buf_free(&out);
    arb_buf_free(&why);
}

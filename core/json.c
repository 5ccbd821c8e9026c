#include <inttypes.h>
#include <stdio.h>

#include "core/json.h"

void
arb_json_str(arb_buf_t *b, const char *s)
{
    const unsigned char *p;

    arb_buf_putc(b, '"');
    for (p = (const unsigned char *)(s ? s : ""); *p != '\0'; p++) {
        switch (*p) {
        case '"':  arb_buf_puts(b, "\\\""); break;
        case '\\': arb_buf_puts(b, "\\\\"); break;
        case '\n': arb_buf_puts(b, "\\n"); break;
        case '\r': arb_buf_puts(b, "\\r"); break;
        case '\t': arb_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                arb_buf_printf(b, "\\u%04x", *p);
            else
                arb_buf_putc(b, (char)*p);
        }
    }
    arb_buf_putc(b, '"');
}

void
arb_json_record(arb_buf_t *b, const arb_record_t *rec)
{
    size_t i, j;

    arb_buf_putc(b, '{');
    for (i = 0; i < rec->nfields; i++) {
        const arb_field_t *f = &rec->fields[i];
        if (i > 0)
            arb_buf_putc(b, ',');
        arb_json_str(b, f->key);
        arb_buf_putc(b, ':');
        switch (f->type) {
        case ARB_F_INT:
            arb_buf_printf(b, "%" PRId64, f->num);
            break;
        case ARB_F_STR:
            arb_json_str(b, f->str);
            break;
        default:
            arb_buf_putc(b, '[');
            for (j = 0; j < f->nlist; j++) {
                if (j > 0)
                    arb_buf_putc(b, ',');
                arb_json_str(b, f->list[j]);
            }
            arb_buf_putc(b, ']');
        }
    }
    arb_buf_putc(b, '}');
}

void
arb_json_results_open(arb_buf_t *b, const arb_results_t *r)
{
    size_t i;

    arb_buf_puts(b, "{\"records\":[");
    for (i = 0; i < r->nrecords; i++) {
        if (i > 0)
            arb_buf_putc(b, ',');
        arb_json_record(b, &r->records[i]);
    }
    arb_buf_puts(b, "],\"totals\":{");
    for (i = 0; i < r->ntotals; i++) {
        if (i > 0)
            arb_buf_putc(b, ',');
        arb_json_str(b, r->totals[i].name);
        arb_buf_printf(b, ":%" PRId64, r->totals[i].points);
    }
    arb_buf_putc(b, '}');
}

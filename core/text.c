/*
 * text.c - see text.h.
 */
#include <string.h>

#include "core/mp.h"
#include "core/text.h"

size_t
arb_text_seq(const char *s, size_t n)
{
    size_t k;

    /* Each prefix is judged whole: only the one that ends the sequence
     * is well-formed. */
    for (k = 1; k <= 4 && k <= n; k++)
        if (arb_mp_utf8_valid(s, k))
            return k;
    return 0;
}

/* The code point of a control character at s (of a well-formed sequence
 * of k bytes), or -1. */
static int
control_at(const unsigned char *s, size_t k)
{
    if (k == 1 && (s[0] < 0x20 || s[0] == 0x7f))
        return s[0];
    if (k == 2 && s[0] == 0xc2 && s[1] < 0xa0)
        return s[1];                /* U+0080-U+009F */
    return -1;
}

int
arb_text_control(const char *s, size_t n, size_t *at)
{
    size_t i = 0, k;
    int    ch;

    while (i < n) {
        unsigned char c = (unsigned char)s[i];

        if (c >= 0x20 && c < 0x7f) {    /* printable ASCII: most text */
            i++;
            continue;
        }
        k = c < 0x80 ? 1 : arb_text_seq(s + i, n - i);
        if (k == 0)
            k = 1;                  /* not UTF-8: the caller's to judge */
        if ((ch = control_at((const unsigned char *)s + i, k)) >= 0) {
            if (at != NULL)
                *at = i;
            return ch;
        }
        i += k;
    }
    return -1;
}

void
arb_text_clean(arb_buf_t *out, const char *s, size_t n, int keep_lines)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t               i = 0, j, k;
    char                 esc[4] = { '\\', 'x', 0, 0 };

    while (i < n) {
        k = p[i] < 0x80 ? 1 : arb_text_seq(s + i, n - i);
        if (k > 0 && (control_at(p + i, k) < 0
                      || (keep_lines && (p[i] == '\n' || p[i] == '\t')))) {
            arb_buf_add(out, s + i, k);
            i += k;
            continue;
        }
        for (j = 0; j < (k > 0 ? k : 1); j++) {
            esc[2] = hex[p[i + j] >> 4];
            esc[3] = hex[p[i + j] & 15];
            arb_buf_add(out, esc, 4);
        }
        i += k > 0 ? k : 1;
    }
}

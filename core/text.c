/*
 * text.c - see text.h.
 */
#include <string.h>

#include "core/err.h"
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

size_t
arb_text_utf8_len(const char *s, size_t n)
{
    size_t i = 0, k;

    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        if ((k = arb_text_seq(s + i, n - i)) == 0)
            break;
        i += k;
    }
    return i;
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

int
arb_text_line_check(const char *s, size_t n, int blanks, arb_buf_t *why)
{
    size_t at = arb_text_utf8_len(s, n), from = 0;
    int    ch;

    if (at < n) {
        arb_buf_printf(why, "invalid UTF-8 in column %zu", at + 1);
        return ARB_EINVAL;
    }
    while ((ch = arb_text_control(s + from, n - from, &at)) >= 0
           && blanks && (ch == '\t' || ch == '\r'))
        from += at + 1;
    if (ch < 0)
        return 0;
    arb_buf_printf(why, "a control character (U+%04X) in column %zu",
                   (unsigned)ch, from + at + 1);
    return ARB_EINVAL;
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

void
arb_text_clean_into(char *dst, size_t cap, const char *s)
{
    arb_buf_t b = ARB_BUF_INIT;
    size_t    n;

    if (cap == 0)
        return;
    arb_text_clean(&b, s, strlen(s), 0);
    n = b.oom ? 0 : b.len;
    if (n > cap - 1) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)b.data[n] & 0xc0) == 0x80)
            n--;                    /* not in the middle of a character */
    }
    if (n > 0)
        memcpy(dst, b.data, n);
    dst[n] = '\0';
    arb_buf_free(&b);
}

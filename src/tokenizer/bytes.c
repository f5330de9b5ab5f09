// bytes: GPT-2's byte-to-unicode table (bytes_to_unicode() in OpenAI's encoder.py).
#include "tokenizer_internal.h"

static bool printable_latin1(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

void tt_byte_table_init(tt_byte_table *t) {
  for (int cp = 0; cp < TT_BYTE_CP_LIMIT; cp++) t->byte[cp] = -1;
  int next = 256;
  for (int b = 0; b < 256; b++) {
    int cp = printable_latin1(b) ? b : next++;
    t->cp[b] = (uint16_t)cp;
    t->byte[cp] = (int16_t)b;
    if (cp < 0x80) {
      t->utf8[b][0] = (char)cp;
      t->utf8[b][1] = 0;
    } else {  // every code point here is below U+0800: two bytes
      t->utf8[b][0] = (char)(0xC0 | (cp >> 6));
      t->utf8[b][1] = (char)(0x80 | (cp & 0x3F));
      t->utf8[b][2] = 0;
    }
  }
}

// auditstorm's native template scanner: the same reading as `template()` in src/decoding/fast.ts,
// compiled for the machine.
//
// `scan(at, end)` reads the line `piece[at, end)` of the piece set with `setPiece(bytes)` (an
// ASCII piece: one byte per character, as `cutLines` hands it to `fastDecode`) the way
// kube-apiserver writes it: compact, members in the order of the Go struct
// (`k8s.io/apiserver/pkg/apis/audit/v1/types.go`), validating the JSON structure of every value it
// passes (strings and their escapes, numbers, literals, nesting, nothing after the object) as
// `template()` does. It answers 1 with the line's offsets in the output array, or 0 when it
// cannot be sure — a member out of the template's order, an escaped key, a level or stage spelt
// with escapes, a status code that is not a plain integer, nesting deeper than MAX_DEPTH, any
// syntax error — and the JavaScript path then reads the line as before. So it only ever makes a
// line faster: whenever it answers 1, `template()` accepts the line and reads the same values
// (test/parser/native.test.ts checks it on every corpus line, every fixture and fuzzed lines).
//
// Output (Int32Array set with `setOutput`), in the OUT_* slots below: the start and end offsets
// (in the piece; -1 when absent) of each string value, the top-level members seen (the `K_*` bits
// of fast.ts), flags, the level, the stage, `responseStatus.code` and which strings have escapes.
#include <node_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <initializer_list>
#include <vector>

namespace {

// Output slots: kept in step with NATIVE_* in src/decoding/native.ts.
enum Field {
  F_AUDITID,
  F_URI,
  F_VERB,
  F_USERNAME,
  F_SOURCEIP,
  F_USERAGENT,
  F_RESOURCE,
  F_NAMESPACE,
  F_NAME,
  F_APIGROUP,
  F_APIVERSION,
  F_RESOURCEVERSION,
  F_SUBRESOURCE,
  F_REASON,
  F_RECEIVED,
  F_STAGETS,
  F_COUNT
};
const int OUT_SEEN = 2 * F_COUNT;
const int OUT_FLAGS = OUT_SEEN + 1;
const int OUT_LEVEL = OUT_SEEN + 2;
const int OUT_STAGE = OUT_SEEN + 3;
const int OUT_CODE = OUT_SEEN + 4;
// Bit f set: field f's string has escapes (JavaScript unescapes it with JSON.parse); bit slot / 2
// for the body strings (OUT_RESPONSE_RV, OUT_RESPONSE_NAME).
const int OUT_ESCAPED = OUT_SEEN + 5;
// Dictionary ids of a final line (see Dict): actor, object, then the words verb, source IP,
// level, reason. -1: not in the dictionary (JavaScript looks it up, then `remember`s it);
// -2: not looked up (no dictionary in use, a value with escapes, no objectRef).
const int OUT_IDS = OUT_SEEN + 6;
const int ID_ACTOR = 0, ID_OBJECT = 1, ID_VERB = 2, ID_SOURCEIP = 3, ID_LEVEL = 4, ID_REASON = 5, ID_COUNT = 6;
// What a record keeps of logged bodies (fast.ts's readBody): the offsets of the requestObject's
// value, and of the responseObject's `metadata.resourceVersion` and `metadata.name` strings (-1:
// absent or not a string; a later duplicate key wins, as in JSON.parse; their escapes in
// OUT_ESCAPED, bit slot / 2, as any string's).
const int OUT_REQUEST_BODY = OUT_IDS + ID_COUNT;
const int OUT_RESPONSE_RV = OUT_REQUEST_BODY + 2;
const int OUT_RESPONSE_NAME = OUT_RESPONSE_RV + 2;
const int OUT_SIZE = OUT_RESPONSE_NAME + 2;

// OUT_FLAGS bits.
const int32_t HAS_REF = 1;
const int32_t REF_HAS_RESOURCE = 2;
const int32_t HAS_BODY = 4;
const int32_t HAS_RECEIVED = 8;

// Top-level members seen: fast.ts's K_* bits.
const int32_t K_KIND = 1, K_API = 2, K_LEVEL = 4, K_AUDITID = 8, K_STAGE = 16, K_URI = 32, K_VERB = 64,
              K_USER = 128, K_IPS = 256, K_UA = 512, K_REF = 1024, K_STATUS = 2048, K_REQOBJ = 4096,
              K_RESPOBJ = 8192, K_RECEIVED = 16384, K_STAGETS = 32768;

// The valid stages and levels, in the order of their codes (1–4; fast.ts's STAGES and LEVELS).
const char* const STAGE_NAMES[] = {"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"};
const char* const LEVEL_NAMES[] = {"Metadata", "Request", "RequestResponse", "None"};

// Nesting deeper than this inside a skipped value is left to the JavaScript path.
const int MAX_DEPTH = 64;

// parseTimestamp() of src/decoding/time.ts, step for step, on the n bytes at s:
// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (`t`/`z` and a space separator accepted) to UTC
// epoch ms with the digits below the millisecond as the fraction (up to 9 fractional digits
// used), or NaN. The same double operations in the same order, so the same value to the bit.
int digitsAt(const uint8_t* s, int at, int len) {
  int v = 0;
  for (int k = at; k < at + len; k++) {
    int d = s[k] - '0';
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

int daysInMonth(int year, int month) {
  if (month == 2) return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28;
  return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
}

// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's days_from_civil), which is
// what Date.UTC computes (time.ts shifts years below 100 by 400 years to get the same).
int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

double parseTime(const uint8_t* s, int32_t n) {
  if (n < 20) return NAN;
  if (s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':') return NAN;
  int sep = s[10];
  if (sep != 'T' && sep != 't' && sep != ' ') return NAN;
  int year = digitsAt(s, 0, 4), month = digitsAt(s, 5, 2), day = digitsAt(s, 8, 2);
  int hour = digitsAt(s, 11, 2), minute = digitsAt(s, 14, 2), second = digitsAt(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NAN;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return NAN;
  int32_t i = 19;
  double fraction = 0;
  if (s[i] == '.') {
    int32_t start = ++i;
    double value = 0, scale = 1;
    for (; i < n; i++) {
      int d = s[i] - '0';
      if (d < 0 || d > 9) break;
      if (i - start < 6) {  // microseconds, as time.ts keeps
        value = value * 10 + d;
        scale *= 10;
      }
    }
    if (i == start) return NAN;
    fraction = (value * 1000) / scale;
  }
  double offsetMinutes = 0;
  int zone = i < n ? s[i] : -1;
  if (zone == 'Z' || zone == 'z') {
    if (i + 1 != n) return NAN;
  } else if (zone == '+' || zone == '-') {
    if (i + 6 != n || s[i + 3] != ':') return NAN;
    int oh = digitsAt(s, i + 1, 2), om = digitsAt(s, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return NAN;
    offsetMinutes = (zone == '-' ? -1 : 1) * (oh * 60 + om);
  } else {
    return NAN;
  }
  double minuteMs = static_cast<double>(daysFromCivil(year, month, day) * 86400000LL + hour * 3600000LL + minute * 60000LL);
  return minuteMs + second * 1000 - offsetMinutes * 60000 + fraction;
}

// The key of one dictionary value for the line just scanned: its parts (pointers into the piece,
// or for the level its code) and their lengths. Stored keys are the parts one after the other,
// each but the last preceded by its length (4 bytes), so parts never run into each other.
struct Key {
  int count = 0;
  const uint8_t* p[6] = {};
  uint32_t len[6] = {};

  uint32_t encodedLength() const {
    uint32_t n = 4 * static_cast<uint32_t>(count - 1);
    for (int i = 0; i < count; i++) n += len[i];
    return n;
  }
};

// Whether the n bytes at a and b are the same: 8 at a time, inline (keys are tens of bytes; a
// call to memcmp per part was a fifth of the lookups' time).
inline bool sameBytes(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + k, 8);
    std::memcpy(&y, b + k, 8);
    if (x != y) return false;
  }
  for (; k < n; k++) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

// A fast hash of `len` bytes, 8 at a time (a multiply-xorshift mix; keys are compared in full,
// so a collision costs a comparison, never a wrong id).
inline uint64_t hash64(const uint8_t* p, size_t len) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
  while (len >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    p += 8;
    len -= 8;
  }
  // The last 0–7 bytes, a byte at a time (a copy of a variable length was a call to memcpy,
  // a tenth of the lookups' time). p may be null for an empty part.
  uint64_t w = 0;
  for (size_t k = 0; k < len; k++) w |= static_cast<uint64_t>(p[k]) << (8 * k);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h;
}

// The hash of a key, from its parts where they are (the key is never copied to be looked up).
inline uint32_t hashOf(const Key& k) {
  uint64_t h = static_cast<uint64_t>(k.count);
  for (int i = 0; i < k.count; i++) {
    h = (h ^ hash64(k.p[i], k.len[i])) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return static_cast<uint32_t>(h);
}

// A cache of one decoder's dictionary ids (a `WorkState` in src/ingest/work-lines.ts), keyed by
// the raw bytes of the values: the ids themselves are assigned in JavaScript, which `remember`s
// each one here after looking it up, so both always agree. Only unescaped values of ASCII lines
// are keys, so a key's bytes are its value's characters.
class Table {
 public:
  // The id of `key`, or -1. The entry found last is tried first: consecutive lines mostly share
  // their verb, level and reason, and then neither a hash nor a probe is needed. An entry is its
  // hash, length and id followed by its bytes, so a probe that hits reads one place of the arena
  // after its slot (a table of entries apart from their bytes cost one more cache miss).
  int32_t find(const Key& key) {
    if (slots_.empty()) return -1;
    uint32_t len = key.encodedLength();
    int32_t id = findLast(key, len);
    return id != -1 ? id : findHashed(key, len, hashOf(key));
  }

  // The id of `key` (of encoded length `len`) if it is the entry found last, else -1.
  int32_t findLast(const Key& key, uint32_t len) const {
    if (last_ != EMPTY && lengthAt(last_) == len && equals(last_, key)) return idAt(last_);
    return -1;
  }

  // Asks for the cache line of `hash`'s home slot, which findHashed reads first.
  void prefetchSlot(uint32_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + (hash & mask_));
  }

  // Asks for the entry in `hash`'s home slot (if any), which findHashed compares first.
  void prefetchEntry(uint32_t hash) const {
    if (slots_.empty()) return;
    uint32_t e = slots_[hash & mask_];
    if (e != EMPTY) __builtin_prefetch(arena_.data() + e);
  }

  // `find` past the entry found last, with the key's encoded length and hash.
  int32_t findHashed(const Key& key, uint32_t len, uint32_t hash) {
    if (slots_.empty()) return -1;
    for (uint32_t k = hash & mask_;; k = (k + 1) & mask_) {
      uint32_t e = slots_[k];
      if (e == EMPTY) return -1;
      if (hashAt(e) == hash && lengthAt(e) == len && equals(e, key)) {
        last_ = e;
        return idAt(e);
      }
    }
  }

  void insert(const Key& key, int32_t id) {
    if (find(key) != -1) return;
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    uint32_t off = static_cast<uint32_t>(arena_.size());
    uint32_t head[3] = {hashOf(key), key.encodedLength(), static_cast<uint32_t>(id)};
    const uint8_t* h = reinterpret_cast<const uint8_t*>(head);
    arena_.insert(arena_.end(), h, h + sizeof head);
    for (int i = 0; i < key.count; i++) {
      if (i + 1 < key.count) {
        uint8_t n[4];
        std::memcpy(n, &key.len[i], 4);
        arena_.insert(arena_.end(), n, n + 4);
      }
      if (key.len[i] > 0) arena_.insert(arena_.end(), key.p[i], key.p[i] + key.len[i]);
    }
    arena_.resize((arena_.size() + 3) & ~static_cast<size_t>(3));  // the next header aligned
    entries_.push_back(off);
    place(off);
  }

  void clear() {
    arena_.clear();
    entries_.clear();
    slots_.clear();
    mask_ = 0;
    last_ = EMPTY;
  }

 private:
  static constexpr uint32_t EMPTY = 0xffffffffu;

  uint32_t word(uint32_t off) const {
    uint32_t w;
    std::memcpy(&w, arena_.data() + off, 4);
    return w;
  }
  uint32_t hashAt(uint32_t e) const { return word(e); }
  uint32_t lengthAt(uint32_t e) const { return word(e + 4); }
  int32_t idAt(uint32_t e) const { return static_cast<int32_t>(word(e + 8)); }

  // Whether the entry at `e` (of the same encoded length) holds `key`'s parts.
  bool equals(uint32_t e, const Key& key) const {
    const uint8_t* a = arena_.data() + e + 12;
    for (int i = 0; i < key.count; i++) {
      uint32_t n = key.len[i];
      if (i + 1 < key.count) {
        uint32_t stored;
        std::memcpy(&stored, a, 4);
        if (stored != n) return false;
        a += 4;
      }
      if (n > 0 && !sameBytes(a, key.p[i], n)) return false;
      a += n;
    }
    return true;
  }

  void place(uint32_t e) {
    for (uint32_t k = hashAt(e) & mask_;; k = (k + 1) & mask_) {
      if (slots_[k] == EMPTY) {
        slots_[k] = e;
        return;
      }
    }
  }

  void grow() {
    size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(size, EMPTY);
    mask_ = static_cast<uint32_t>(size - 1);
    for (uint32_t e : entries_) place(e);
  }

  // Entries one after another: hash, encoded length, id (4 bytes each), then the key's bytes.
  std::vector<uint8_t> arena_;
  // Where each entry starts, in insertion order (to place them again when the slots grow).
  std::vector<uint32_t> entries_;
  std::vector<uint32_t> slots_;
  uint32_t mask_ = 0;
  uint32_t last_ = EMPTY;
};

struct Dict {
  Table actors;
  Table objects;
  Table words[4];  // verb, source IP, level, reason
};

// What each JavaScript thread (main, workers: one environment each) has set.
struct Instance {
  const uint8_t* piece = nullptr;
  int32_t pieceLength = 0;
  int32_t* out = nullptr;
  napi_ref pieceRef = nullptr;
  napi_ref outRef = nullptr;
  // The times of the line last read (stageTimestamp, requestReceivedTimestamp as parseTime
  // gives them; NaN: not parsed here), and their array.
  double* times = nullptr;
  napi_ref timesRef = nullptr;
  // The dictionary `scan` looks final lines up in (null: none), and the last line scanned.
  Dict* dict = nullptr;
  napi_ref dictRef = nullptr;  // holds the handle while in use
  // The output of the line last read, as scan wrote it: `remember` builds keys from this copy,
  // never from `out`, which JavaScript can write.
  bool lastRead = false;
  int32_t last[OUT_SIZE];
  // What `scanLines` writes (see SetBatch): per line kind, start, end; per final line its
  // values (FINAL_STRIDE slots) and its two times; and the limits fast.ts's finish() checks.
  int32_t* lines = nullptr;
  size_t linesLength = 0;
  int32_t* finals = nullptr;
  size_t finalsLength = 0;
  double* finalTimes = nullptr;
  size_t finalTimesLength = 0;
  double plausibleFrom = 0;
  double plausibleTo = 0;
  int32_t required = 0;
  napi_ref linesRef = nullptr;
  napi_ref finalsRef = nullptr;
  napi_ref finalTimesRef = nullptr;
};

// The level's key is its code (one of four names, checked by scanLine).
const uint8_t LEVEL_CODES[8] = {0, 1, 2, 3, 4, 5, 6, 7};

// The key of dictionary `kind` (ID_*) for the line just scanned into `out`, in `key`; false when
// a part has escapes (JavaScript alone looks such a value up).
bool keyOf(const Instance* in, int kind, const int32_t* out, Key& key) {
  static const int ACTOR_PARTS[] = {F_USERNAME, F_USERAGENT};
  static const int OBJECT_PARTS[] = {F_APIGROUP, F_RESOURCE, F_NAMESPACE, F_NAME, F_SUBRESOURCE, F_APIVERSION};
  static const int WORD_PART[] = {F_VERB, F_SOURCEIP, -1, F_REASON};
  if (kind == ID_LEVEL) {
    key.count = 1;
    key.p[0] = LEVEL_CODES + (out[OUT_LEVEL] & 7);
    key.len[0] = 1;
    return true;
  }
  const int* parts;
  int word = -1;
  if (kind == ID_ACTOR) {
    parts = ACTOR_PARTS;
    key.count = 2;
  } else if (kind == ID_OBJECT) {
    parts = OBJECT_PARTS;
    key.count = 6;
  } else {
    word = WORD_PART[kind - ID_VERB];
    parts = &word;
    key.count = 1;
  }
  for (int p = 0; p < key.count; p++) {
    int f = parts[p];
    if ((out[OUT_ESCAPED] & (1 << f)) != 0) return false;
    int32_t from = out[2 * f];
    key.p[p] = from < 0 ? nullptr : in->piece + from;
    key.len[p] = from < 0 ? 0 : static_cast<uint32_t>(out[2 * f + 1] - from);
  }
  return true;
}

Table& tableOf(Dict* d, int kind) {
  return kind == ID_ACTOR ? d->actors : kind == ID_OBJECT ? d->objects : d->words[kind - ID_VERB];
}

// Looks the final line just scanned up in the dictionary in use: OUT_IDS. In three passes over
// the dictionaries, so that their cache misses overlap: the keys (and, for those not the entry
// found last, the home slots asked for), the entries in those slots asked for, then the probes.
// One dictionary after another, each lookup waited for its slot and then for its entry: two
// misses in a row, three times a line (actor, object, source IP), 58 % of the lookups' time.
void lookUp(Instance* in, int32_t* out) {
  bool object = (out[OUT_FLAGS] & HAS_REF) != 0;
  Key keys[ID_COUNT];
  uint32_t lens[ID_COUNT];
  uint32_t hashes[ID_COUNT];
  bool probe[ID_COUNT];
  for (int kind = 0; kind < ID_COUNT; kind++) {
    probe[kind] = false;
    int32_t id = -2;
    if ((kind != ID_OBJECT || object) && keyOf(in, kind, out, keys[kind])) {
      Table& t = tableOf(in->dict, kind);
      lens[kind] = keys[kind].encodedLength();
      id = t.findLast(keys[kind], lens[kind]);
      if (id == -1) {
        hashes[kind] = hashOf(keys[kind]);
        t.prefetchSlot(hashes[kind]);
        probe[kind] = true;
      }
    }
    out[OUT_IDS + kind] = id;
  }
  for (int kind = 0; kind < ID_COUNT; kind++) {
    if (probe[kind]) tableOf(in->dict, kind).prefetchEntry(hashes[kind]);
  }
  for (int kind = 0; kind < ID_COUNT; kind++) {
    if (probe[kind]) out[OUT_IDS + kind] = tableOf(in->dict, kind).findHashed(keys[kind], lens[kind], hashes[kind]);
  }
}

// One line's reading. On the stack of each call: a worker thread and the main thread each scan
// their own lines, so nothing here is shared between threads.
struct Scanner {
  // The line being read: s[i] for i < n; `failed` once anything is wrong (then nothing is answered).
  const uint8_t* s = nullptr;
  int32_t i = 0;
  int32_t n = 0;
  bool failed = false;
  int32_t seen = 0;
  int32_t* out = nullptr;
  // Whether the line holds a backslash at all, and whether the last string read had escapes.
  bool backslashes = false;
  bool escaped = false;

  int at(int32_t k) { return k < n ? s[k] : -1; }

  void fail() {
    failed = true;
    i = n;
  }

  void ws() {
    while (i < n) {
      uint8_t c = s[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
      else return;
    }
  }

  // Moves past the literal `text` if it is at i (and fits in the line). Its length is known at
  // compile time, so the comparison is a few 8-byte loads, not a call (memcmp was a fifth of the
  // scanner's time).
  template <size_t N>
  bool lit(const char (&text)[N]) {
    constexpr int32_t len = static_cast<int32_t>(N - 1);
    if (i + len > n) return false;
    if (!sameBytes(s + i, reinterpret_cast<const uint8_t*>(text), len)) return false;
    i += len;
    return true;
  }
#define LIT(text) lit(text)

  // The first `"` in s[from, n), or -1: eight bytes at a time (most strings are short, and a call
  // to memchr per string cost more than the search).
  int32_t quoteFrom(int32_t from) const {
    const uint8_t* p = s + from;
    const uint8_t* end = s + n;
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      uint64_t x = w ^ 0x2222222222222222ull;  // a '"' byte becomes 0
      uint64_t z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
      // The lowest set bit marks the first zero byte exactly (bits above it may be borrows).
      if (z != 0) return static_cast<int32_t>(p - s) + (__builtin_ctzll(z) >> 3);
      p += 8;
    }
    for (; p < end; p++) {
      if (*p == '"') return static_cast<int32_t>(p - s);
    }
    return -1;
  }

  void set(Field f, int32_t from, int32_t to) {
    out[2 * f] = from;
    out[2 * f + 1] = to;
  }

  // The end (closing quote) of a string whose opening quote is just before i, or -1 with a
  // failure; moves past it and sets `escaped`. A string without a backslash ends at the next quote
  // and is taken as it is (as fast.ts takes it); one with a backslash is checked as `JSON.parse`
  // checks it in fast.ts: valid escapes, no raw control character.
  int32_t stringEnd() {
    escaped = false;
    int32_t end = quoteFrom(i);
    if (end == -1) {
      fail();
      return -1;
    }
    if (!backslashes || std::memchr(s + i, '\\', end - i) == nullptr) {
      i = end + 1;
      return end;
    }
    int32_t k = i;
    for (;;) {
      if (k >= n) {
        fail();
        return -1;
      }
      uint8_t c = s[k];
      if (c == '"') break;
      if (c < 0x20) {
        fail();
        return -1;
      }
      if (c == '\\') {
        c = static_cast<uint8_t>(at(k + 1));
        if (c == 'u') {
          for (int h = 2; h < 6; h++) {
            if (!hex(at(k + h))) {
              fail();
              return -1;
            }
          }
          k += 6;
          continue;
        }
        if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't') {
          fail();
          return -1;
        }
        k += 2;
        continue;
      }
      k++;
    }
    escaped = true;
    i = k + 1;
    return k;
  }

  static bool hex(int c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

  // A string whose opening quote is just before i: its offsets (and whether it has escapes).
  void tstr(Field f) {
    int32_t from = i;
    int32_t end = stringEnd();
    if (end == -1) return;
    set(f, from, end);
    if (escaped) out[OUT_ESCAPED] |= 1 << f;
  }

  // A string at i (its opening quote): its offsets, or a failure.
  void str(Field f) {
    if (at(i) != '"') return fail();
    i++;
    tstr(f);
  }

  void skipStr() {
    i++;
    stringEnd();
  }

  bool digit(int c) { return c >= '0' && c <= '9'; }

  // A JSON number at i, strict grammar (as fast.ts's skipNumber).
  void skipNumber() {
    if (at(i) == '-') i++;
    int c = at(i);
    if (c == '0') i++;
    else if (c >= '1' && c <= '9') {
      i++;
      while (digit(at(i))) i++;
    } else return fail();
    if (at(i) == '.') {
      i++;
      if (!digit(at(i))) return fail();
      while (digit(at(i))) i++;
    }
    c = at(i);
    if (c == 'e' || c == 'E') {
      i++;
      c = at(i);
      if (c == '+' || c == '-') i++;
      if (!digit(at(i))) return fail();
      while (digit(at(i))) i++;
    }
  }

  template <size_t N>
  void literal(const char (&word)[N]) {
    if (!lit(word)) fail();
  }


  // After a member value: `,` (true, at the next key) or `close` (false).
  bool next(int close) {
    ws();
    int c = at(i);
    if (c == ',') {
      i++;
      ws();
      return true;
    }
    if (c == close) {
      i++;
      return false;
    }
    fail();
    return false;
  }

  // At `{` or `[`: true if it has members (i at the first), false if empty.
  bool open(int close) {
    i++;
    ws();
    if (at(i) == close) {
      i++;
      return false;
    }
    return !failed;
  }

  // A key at i and the `:` after it: its start; its length in keyLen.
  int32_t keyLen = 0;
  int32_t key() {
    if (at(i) != '"') {
      fail();
      return 0;
    }
    i++;
    int32_t start = i;
    int32_t end = stringEnd();
    if (end == -1) return 0;
    if (escaped) {
      fail();  // escaped keys are left to the full path, as fast.ts leaves them
      return 0;
    }
    keyLen = end - start;
    ws();
    if (at(i) != ':') {
      fail();
      return 0;
    }
    i++;
    ws();
    return start;
  }

  bool keyIs(int32_t start, const char* name, int32_t len) {
    return keyLen == len && std::memcmp(s + start, name, len) == 0;
  }
#define KEY_IS(start, name) keyIs(start, name, sizeof(name) - 1)

  void skipObject(int depth) {
    if (!open('}')) return;
    do {
      key();
      if (failed) return;
      skipValue(depth);
    } while (!failed && next('}'));
  }

  void skipArray(int depth) {
    if (!open(']')) return;
    do {
      skipValue(depth);
    } while (!failed && next(']'));
  }

  void skipValue(int depth) {
    int c = at(i);
    if (c == '"') skipStr();
    else if (c == '{' || c == '[') {
      if (depth >= MAX_DEPTH) return fail();
      if (c == '{') skipObject(depth + 1);
      else skipArray(depth + 1);
    } else if (c == 't') literal("true");
    else if (c == 'f') literal("false");
    else if (c == 'n') literal("null");
    else skipNumber();
  }

  bool mark(int32_t bit) {
    if ((seen & bit) != 0) {
      fail();
      return false;
    }
    seen |= bit;
    return true;
  }

  bool isNull() {
    if (at(i) == 'n') {
      literal("null");
      return true;
    }
    return false;
  }

  // `responseStatus`: `code` (three digits, 100–999 as decodeObject's isHttpStatus, else not sure) and `reason`.
  void readStatus() {
    if (!mark(K_STATUS) || isNull()) return;
    if (at(i) != '{') return fail();
    if (!open('}')) return;
    int got = 0;
    do {
      int32_t start = key();
      if (failed) return;
      if (KEY_IS(start, "code")) {
        if ((got & 1) != 0) return fail();
        got |= 1;
        // fast.ts takes any JSON number that is an integer status; here only three plain digits.
        int32_t from = i;
        skipNumber();
        if (failed) return;
        int32_t len = i - from;
        if (len != 3 || s[from] == '-' || s[from] == '0') return fail();
        int32_t v = 0;
        for (int32_t k = from; k < i; k++) {
          if (!digit(s[k])) return fail();  // a fraction or an exponent
          v = v * 10 + (s[k] - '0');
        }
        out[OUT_CODE] = v;
      } else if (KEY_IS(start, "reason")) {
        if ((got & 2) != 0) return fail();
        got |= 2;
        str(F_REASON);
      } else skipValue(0);
    } while (!failed && next('}'));
  }

  // A response object at `{`: `metadata` read (readResponseMetadata), the rest skipped.
  void readResponse() {
    if (!open('}')) return;
    do {
      int32_t start = key();
      if (failed) return;
      if (KEY_IS(start, "metadata")) {
        bodyString(OUT_RESPONSE_RV, -1);
        bodyString(OUT_RESPONSE_NAME, -1);
        if (at(i) == '{') readResponseMetadata();
        else skipValue(1);
      } else skipValue(1);
    } while (!failed && next('}'));
  }

  // A response object's `metadata` at `{`: its `resourceVersion` and `name` when strings.
  void readResponseMetadata() {
    if (!open('}')) return;
    do {
      int32_t start = key();
      if (failed) return;
      if (KEY_IS(start, "resourceVersion")) bodyString(OUT_RESPONSE_RV, 2);
      else if (KEY_IS(start, "name")) bodyString(OUT_RESPONSE_NAME, 2);
      else skipValue(2);
    } while (!failed && next('}'));
  }

  // The value at i into body slot `slot`: a string's offsets (its escapes in OUT_ESCAPED, bit
  // slot / 2), else -1 and the value skipped at `depth`; with depth -1 the slot is only cleared.
  void bodyString(int slot, int depth) {
    const int32_t bit = 1 << (slot / 2);
    out[slot] = out[slot + 1] = -1;
    out[OUT_ESCAPED] &= ~bit;
    if (depth < 0) return;
    if (at(i) != '"') return skipValue(depth);
    i++;
    int32_t from = i;
    int32_t end = stringEnd();
    if (end == -1) return;
    out[slot] = from;
    out[slot + 1] = end;
    if (escaped) out[OUT_ESCAPED] |= bit;
  }

  // The members of `user` after `username`, up to its `}` (a second `username` fails).
  void restOfUser() {
    while (!failed && next('}')) {
      int32_t start = key();
      if (failed) return;
      if (KEY_IS(start, "username")) return fail();
      skipValue(0);
    }
  }

  // 1 + the index of s[from, to) among the four `names`, or 0: the stage and the level as codes.
  int32_t codeOf(int32_t from, int32_t to, const char* const* names) {
    size_t len = static_cast<size_t>(to - from);
    for (int k = 0; k < 4; k++) {
      if (std::strlen(names[k]) == len && std::memcmp(s + from, names[k], len) == 0) return k + 1;
    }
    return 0;
  }

  // template() of fast.ts. Returns whether the line was read.
  bool scanLine() {
    for (int k = 0; k < OUT_SIZE; k++) out[k] = -1;
    out[OUT_FLAGS] = 0;
    out[OUT_CODE] = 0;
    out[OUT_ESCAPED] = 0;
    seen = 0;
    failed = false;
    backslashes = std::memchr(s + i, '\\', n - i) != nullptr;
    if (!LIT("{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"")) return false;
    int32_t from = i;
    int32_t end = stringEnd();
    if (end == -1) return false;
    int32_t level = codeOf(from, end, LEVEL_NAMES);
    if (level == 0) return false;
    out[OUT_LEVEL] = level;
    if (!LIT(",\"auditID\":\"")) return false;
    tstr(F_AUDITID);
    if (!LIT(",\"stage\":\"")) return false;
    from = i;
    end = stringEnd();
    if (end == -1) return false;
    out[OUT_STAGE] = codeOf(from, end, STAGE_NAMES);
    if (out[OUT_STAGE] == 0) return false;  // not a stage: the JavaScript path says why
    if (!LIT(",\"requestURI\":\"")) return false;
    tstr(F_URI);
    if (!LIT(",\"verb\":\"")) return false;
    tstr(F_VERB);
    seen = K_KIND | K_API | K_LEVEL | K_AUDITID | K_STAGE | K_URI | K_VERB;
    if (failed) return false;
    int32_t flags = 0;
    if (LIT(",\"user\":{\"username\":\"")) {
      seen |= K_USER;
      tstr(F_USERNAME);
      restOfUser();
    }
    if (LIT(",\"impersonatedUser\":")) skipValue(0);
    if (LIT(",\"sourceIPs\":[")) {
      seen |= K_IPS;
      if (at(i) != ']') {
        str(F_SOURCEIP);
        while (!failed && next(']')) skipValue(0);
      } else i++;
    }
    if (LIT(",\"userAgent\":\"")) {
      seen |= K_UA;
      tstr(F_USERAGENT);
    }
    if (LIT(",\"objectRef\":{")) {
      seen |= K_REF;
      flags |= HAS_REF;
      if (LIT("\"resource\":\"")) {
        tstr(F_RESOURCE);
        flags |= REF_HAS_RESOURCE;
        if (LIT(",\"namespace\":\"")) tstr(F_NAMESPACE);
        if (LIT(",\"name\":\"")) tstr(F_NAME);
        if (LIT(",\"uid\":\"")) stringEnd();
        if (LIT(",\"apiGroup\":\"")) tstr(F_APIGROUP);
        if (LIT(",\"apiVersion\":\"")) tstr(F_APIVERSION);
        if (LIT(",\"resourceVersion\":\"")) tstr(F_RESOURCEVERSION);
        if (LIT(",\"subresource\":\"")) tstr(F_SUBRESOURCE);
      }
      if (failed || at(i) != '}') return false;
      i++;
    }
    if (LIT(",\"responseStatus\":")) readStatus();
    if (LIT(",\"requestObject\":")) {
      if (mark(K_REQOBJ) && !isNull()) {
        flags |= HAS_BODY;
        out[OUT_REQUEST_BODY] = i;
        skipValue(0);
        out[OUT_REQUEST_BODY + 1] = i;
      }
    }
    if (LIT(",\"responseObject\":")) {
      if (mark(K_RESPOBJ) && !isNull()) {
        flags |= HAS_BODY;
        if (at(i) == '{') readResponse();
        else skipValue(0);
      }
    }
    if (LIT(",\"requestReceivedTimestamp\":")) {
      if (mark(K_RECEIVED) && !isNull()) {
        str(F_RECEIVED);
        flags |= HAS_RECEIVED;
      }
    }
    if (failed) return false;
    if (!LIT(",\"stageTimestamp\":\"")) return false;
    seen |= K_STAGETS;
    tstr(F_STAGETS);
    if (LIT(",\"annotations\":")) skipValue(0);
    if (failed || at(i) != '}' || i + 1 != n) return false;
    out[OUT_SEEN] = seen;
    out[OUT_FLAGS] = flags;
    return true;
  }

};

napi_value Int(napi_env env, int32_t v) {
  napi_value r;
  napi_create_int32(env, v, &r);
  return r;
}

// The call's arguments, up to n of them, into argv; how many were given.
size_t args(napi_env env, napi_callback_info info, napi_value* argv, size_t n) {
  size_t argc = n;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  return argc;
}

Instance* instance(napi_env env) {
  void* data = nullptr;
  napi_get_instance_data(env, &data);
  return static_cast<Instance*>(data);
}

// A Uint8Array's (or Int32Array's) bytes, or false.
bool typed(napi_env env, napi_value v, napi_typedarray_type want, void** data, size_t* length) {
  bool is = false;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  if (napi_get_typedarray_info(env, v, &type, length, data, nullptr, nullptr) != napi_ok) return false;
  return type == want;
}

// Makes `ref` hold `value` (nothing when null), letting go of what it held.
void hold(napi_env env, napi_ref& ref, napi_value value) {
  if (ref != nullptr) napi_delete_reference(env, ref);
  ref = nullptr;
  if (value != nullptr) napi_create_reference(env, value, 1, &ref);
}

// setPiece(bytes: Uint8Array | null): the piece `scan` reads until the next call (held until
// then; null lets go of it). Its buffer must not be transferred (detached) while it is set.
napi_value SetPiece(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  size_t argc = args(env, info, argv, 1);
  Instance* in = instance(env);
  hold(env, in->pieceRef, nullptr);
  in->piece = nullptr;
  in->pieceLength = 0;
  in->lastRead = false;
  void* data;
  size_t length;
  if (argc < 1 || !typed(env, argv[0], napi_uint8_array, &data, &length) || length > 0x7fffffff) return Int(env, 0);
  hold(env, in->pieceRef, argv[0]);
  in->piece = static_cast<const uint8_t*>(data);
  in->pieceLength = static_cast<int32_t>(length);
  return Int(env, 1);
}

// setOutput(out: Int32Array of at least outputSize, times: Float64Array of 2): where `scan`
// writes (both held).
napi_value SetOutput(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = args(env, info, argv, 2);
  Instance* in = instance(env);
  void* data;
  size_t length;
  void* tdata;
  size_t tlength;
  if (argc < 2 || !typed(env, argv[0], napi_int32_array, &data, &length) || length < static_cast<size_t>(OUT_SIZE) ||
      !typed(env, argv[1], napi_float64_array, &tdata, &tlength) || tlength < 2)
    return Int(env, 0);
  hold(env, in->outRef, argv[0]);
  hold(env, in->timesRef, argv[1]);
  in->out = static_cast<int32_t*>(data);
  in->times = static_cast<double*>(tdata);
  return Int(env, 1);
}

// Whether the piece set is still where it was when set (its buffer was not transferred, i.e.
// detached, meanwhile): `scan` and `scanLines` read nothing otherwise.
bool pieceInPlace(napi_env env, Instance* in) {
  napi_value piece;
  void* data = nullptr;
  size_t length = 0;
  return napi_get_reference_value(env, in->pieceRef, &piece) == napi_ok && piece != nullptr &&
         typed(env, piece, napi_uint8_array, &data, &length) && data == in->piece &&
         length == static_cast<size_t>(in->pieceLength);
}

// The time at field f of the line just read, or NaN (absent, escaped, or not a time parseTime reads).
double timeOf(Instance* in, const int32_t* out, int f) {
  int32_t from = out[2 * f];
  if (from < 0 || (out[OUT_ESCAPED] & (1 << f)) != 0) return NAN;
  return parseTime(in->piece + from, out[2 * f + 1] - from);
}

// What `scan` leaves of a line it read, for JavaScript and `remember`: its two times as parsed
// (NaN: not parsed here), and the copy of its output `remember` builds keys from.
void leaveReading(Instance* in, const int32_t* out, double stageMs, double receivedMs) {
  in->times[0] = stageMs;
  in->times[1] = receivedMs;
  std::memcpy(in->last, out, sizeof in->last);
  in->lastRead = true;
}

// scan(at, end): 1 when the line piece[at, end) was read (its offsets in the output), else 0.
napi_value Scan(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = args(env, info, argv, 2);
  Instance* in = instance(env);
  in->lastRead = false;
  int32_t from = 0, to = 0;
  if (argc < 2 || in->piece == nullptr || in->out == nullptr || napi_get_value_int32(env, argv[0], &from) != napi_ok ||
      napi_get_value_int32(env, argv[1], &to) != napi_ok || from < 0 || to > in->pieceLength || from >= to)
    return Int(env, 0);
  // The piece's memory is where it was (its buffer was not transferred meanwhile): else not sure.
  if (!pieceInPlace(env, in)) return Int(env, 0);
  Scanner sc;
  sc.s = in->piece;
  sc.i = from;
  sc.n = to;
  sc.out = in->out;
  bool read = sc.scanLine();
  int32_t* out = in->out;
  for (int k = 0; k < ID_COUNT; k++) out[OUT_IDS + k] = -2;
  if (read) {
    if (in->dict != nullptr && out[OUT_STAGE] >= 3) lookUp(in, out);
    leaveReading(in, out, timeOf(in, out, F_STAGETS), (out[OUT_FLAGS] & HAS_RECEIVED) != 0 ? timeOf(in, out, F_RECEIVED) : NAN);
  }
  return Int(env, read ? 1 : 0);
}


// Line kinds of `scanLines` (LINE_* in src/decoding/native.ts).
const int32_t LINE_JS = 0;        // for the JavaScript path, as cutLines would hand it on
const int32_t LINE_LONG = 1;      // longer than maxLength
const int32_t LINE_NONFINAL = 2;  // a valid event of a non-final stage
const int32_t LINE_FINAL = 3;     // a final event read here: its values are in the next finals slots
const int32_t LINE_EMPTY = 4;     // nothing (or only a '\r') before its newline
// A final event read here with a value the dictionary does not know yet: its values are in the
// next finals slots as a final line's, with -1 for each id not found, and the call ends with it,
// its reading left in the output as `scan` leaves one (JavaScript cuts the new values out of the
// piece at its offsets, looks them up and `remember`s their ids, without reading the line again).
const int32_t LINE_MISS = 5;
// Slots per final line in `finals`.
const int FINAL_AUDITID = 0, FINAL_RV = 2, FINAL_URI = 4, FINAL_CODE = 6, FINAL_PANIC = 7, FINAL_IDS = 8,
          FINAL_LANES = 14, FINAL_STRIDE = 16;

inline uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// `idLanes` of src/decoding/hash.ts on the n bytes at p (an unescaped value of an ASCII line: its
// UTF-16 code units are its bytes), step for step, into out[0], out[1]: the auditID's hash the
// request de-duplication keys on, so the reading thread does not compute it again.
void idLanes(const uint8_t* p, int32_t n, int32_t* out) {
  uint32_t a = 0x811c9dc5u ^ static_cast<uint32_t>(n);
  uint32_t b = 0x5bd1e995u ^ static_cast<uint32_t>(n);
  int32_t i = 0;
  for (; i + 1 < n; i += 2) {
    uint32_t c = static_cast<uint32_t>(p[i]) | (static_cast<uint32_t>(p[i + 1]) << 16);
    a ^= rotl(c * 0xcc9e2d51u, 15) * 0x1b873593u;
    a = rotl(a, 13) * 5 + 0xe6546b64u;
    b ^= rotl(c * 0x85ebca6bu, 16) * 0xc2b2ae35u;
    b = rotl(b, 17) * 5 + 0x52dce729u;
  }
  if (i < n) {
    uint32_t c = p[i];
    a ^= rotl(c * 0xcc9e2d51u, 15) * 0x1b873593u;
    b ^= rotl(c * 0x85ebca6bu, 16) * 0xc2b2ae35u;
  }
  a ^= a >> 16;
  a *= 0x85ebca6bu;
  a ^= a >> 13;
  a *= 0xc2b2ae35u;
  a ^= a >> 16;
  b ^= b >> 15;
  b *= 0x2c1b3c6du;
  b ^= b >> 12;
  b *= 0x297a2d39u;
  b ^= b >> 15;
  out[0] = static_cast<int32_t>(a);
  out[1] = static_cast<int32_t>(b);
}

// setBatch(lines: Int32Array, finals: Int32Array, times: Float64Array, limits: Float64Array):
// where `scanLines` writes (all held), and limits = [plausibleFrom, plausibleTo, required], the
// constants of fast.ts's finish().
napi_value SetBatch(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t argc = args(env, info, argv, 4);
  Instance* in = instance(env);
  void *l, *f, *t, *lim;
  size_t ll, fl, tl, liml;
  if (argc < 4 || !typed(env, argv[0], napi_int32_array, &l, &ll) || !typed(env, argv[1], napi_int32_array, &f, &fl) ||
      !typed(env, argv[2], napi_float64_array, &t, &tl) || !typed(env, argv[3], napi_float64_array, &lim, &liml) || liml < 3)
    return Int(env, 0);
  hold(env, in->linesRef, argv[0]);
  hold(env, in->finalsRef, argv[1]);
  hold(env, in->finalTimesRef, argv[2]);
  in->lines = static_cast<int32_t*>(l);
  in->linesLength = ll;
  in->finals = static_cast<int32_t*>(f);
  in->finalsLength = fl;
  in->finalTimes = static_cast<double*>(t);
  in->finalTimesLength = tl;
  const double* limits = static_cast<const double*>(lim);
  in->plausibleFrom = limits[0];
  in->plausibleTo = limits[1];
  in->required = static_cast<int32_t>(limits[2]);
  return Int(env, 1);
}

// Whether the bytes [p, end) hold `text` anywhere.
template <size_t N>
bool mentions(const uint8_t* p, const uint8_t* end, const char (&text)[N]) {
  constexpr size_t len = N - 1;
  for (; end - p >= static_cast<ptrdiff_t>(len); p++) {
    if (*p == static_cast<uint8_t>(text[0]) && std::memcmp(p, text, len) == 0) return true;
  }
  return false;
}

// The kind of the line s[from, to) (its newline, if any, at `to`), as cutLines and fastDecode
// would take it, with a final line's values in `fin` / `times`; LINE_JS whenever the JavaScript
// path must look (a blank or prefixed line, anything the scanner is not sure of, escapes in a
// value the record keeps, a value the dictionary does not know yet).
int32_t lineKind(Instance* in, int32_t from, int32_t to, int32_t maxLength, int32_t* fin, double* times) {
  if (to - from > maxLength) return LINE_LONG;
  const uint8_t* s = in->piece;
  int32_t b = to;
  if (b > from && s[b - 1] == '\r') b--;
  if (b == from) return LINE_EMPTY;
  if (s[from] != '{') return LINE_JS;  // blank, or a prefix to strip: JavaScript decides
  int32_t* out = in->out;
  Scanner sc;
  sc.s = s;
  sc.i = from;
  sc.n = b;
  sc.out = out;
  if (!sc.scanLine()) return LINE_JS;
  // What finish() in fast.ts checks, with the times read here.
  if ((out[OUT_SEEN] & in->required) != in->required) return LINE_JS;
  double stageMs = timeOf(in, out, F_STAGETS);
  if (!(stageMs >= in->plausibleFrom && stageMs < in->plausibleTo)) return LINE_JS;  // NaN too
  double received = NAN;  // as parsed
  double receivedMs = stageMs;  // as finish() takes it
  if ((out[OUT_FLAGS] & HAS_RECEIVED) != 0) {
    received = timeOf(in, out, F_RECEIVED);
    if (std::isnan(received)) return LINE_JS;
    if (!(received < in->plausibleFrom || received > stageMs)) receivedMs = received;
  }
  int32_t stage = out[OUT_STAGE];
  if (stage < 3) return LINE_NONFINAL;
  int32_t flags = out[OUT_FLAGS];
  if ((flags & HAS_BODY) != 0 || ((flags & HAS_REF) != 0 && (flags & REF_HAS_RESOURCE) == 0)) return LINE_JS;
  if (in->dict == nullptr) return LINE_JS;
  const int32_t kept = (1 << F_AUDITID) | (1 << F_RESOURCEVERSION) | (1 << F_URI);
  if ((out[OUT_ESCAPED] & kept) != 0) return LINE_JS;
  lookUp(in, out);
  bool miss = false;
  for (int k = 0; k < ID_COUNT; k++) {
    int32_t id = out[OUT_IDS + k];
    if (id >= 0) continue;
    if (k == ID_OBJECT && (flags & HAS_REF) == 0) continue;  // no objectRef: no object
    if (id != -1) return LINE_JS;  // a part with escapes: JavaScript alone looks it up
    miss = true;
  }
  fin[FINAL_AUDITID] = out[2 * F_AUDITID];
  fin[FINAL_AUDITID + 1] = out[2 * F_AUDITID + 1];
  if (out[2 * F_AUDITID] >= 0) idLanes(s + out[2 * F_AUDITID], out[2 * F_AUDITID + 1] - out[2 * F_AUDITID], fin + FINAL_LANES);
  else fin[FINAL_LANES] = fin[FINAL_LANES + 1] = 0;  // not expected: the auditID is required
  fin[FINAL_RV] = out[2 * F_RESOURCEVERSION];
  fin[FINAL_RV + 1] = out[2 * F_RESOURCEVERSION + 1];
  // The URI only when what a record keeps of it could be there (see uriFacts in normalize.ts:
  // the `fieldManager` and `dryRun` query parameters); most URIs name neither.
  // Only past the first '?', where uriFacts looks (most URIs' queries are a `timeout=` or none).
  const uint8_t* uriEnd = s + out[2 * F_URI + 1];
  const uint8_t* query = static_cast<const uint8_t*>(std::memchr(s + out[2 * F_URI], '?', static_cast<size_t>(uriEnd - (s + out[2 * F_URI]))));
  bool facts = query != nullptr && (mentions(query, uriEnd, "fieldManager=") || mentions(query, uriEnd, "dryRun="));
  fin[FINAL_URI] = facts ? out[2 * F_URI] : -1;
  fin[FINAL_URI + 1] = facts ? out[2 * F_URI + 1] : -1;
  fin[FINAL_CODE] = out[OUT_CODE];
  fin[FINAL_PANIC] = stage == 4 ? 1 : 0;
  for (int k = 0; k < ID_COUNT; k++) fin[FINAL_IDS + k] = out[OUT_IDS + k];
  if ((flags & HAS_REF) == 0) fin[FINAL_IDS + ID_OBJECT] = -1;
  times[0] = stageMs;
  times[1] = receivedMs;
  if (miss) {
    // Its values as a final line's (the ids not found are -1), and its reading left for
    // `remember` and for JavaScript, which cuts the new values out of the piece.
    leaveReading(in, out, stageMs, received);
    return LINE_MISS;
  }
  return LINE_FINAL;
}

// scanLines(at, end, last, maxLength): the lines of piece[at, end) as cutLines cuts them — each
// up to its '\n'; a last one without a newline only when `last` — into `lines` (kind, start, end:
// the end is where its '\n' is, or `end`), as many as fit in `lines` and `finals`. Returns how
// many; the next call starts after the last one's end. A LINE_MISS line ends the call, and comes
// only before any LINE_JS line (whose reading in JavaScript would overwrite the reading it leaves).
// Needs the piece, output and batch arrays set; 0 when they are not (or the piece moved).
napi_value ScanLines(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t argc = args(env, info, argv, 4);
  Instance* in = instance(env);
  in->lastRead = false;
  int32_t at = 0, end = 0, maxLength = 0;
  bool last = false;
  if (argc < 4 || in->piece == nullptr || in->out == nullptr || in->lines == nullptr || napi_get_value_int32(env, argv[0], &at) != napi_ok ||
      napi_get_value_int32(env, argv[1], &end) != napi_ok || napi_get_value_bool(env, argv[2], &last) != napi_ok ||
      napi_get_value_int32(env, argv[3], &maxLength) != napi_ok || at < 0 || end > in->pieceLength || at > end)
    return Int(env, 0);
  if (!pieceInPlace(env, in)) return Int(env, 0);
  const uint8_t* s = in->piece;
  size_t capLines = in->linesLength / 3;
  size_t capFinals = std::min(in->finalsLength / FINAL_STRIDE, in->finalTimesLength / 2);
  size_t count = 0, finals = 0;
  // Whether a line for the JavaScript path came before in this call: its reading there
  // overwrites the output, so a line with a new value after it is left to the next call.
  bool passed = false;
  int32_t from = at;
  while (count < capLines && finals < capFinals) {
    const void* nl = from < end ? std::memchr(s + from, '\n', static_cast<size_t>(end - from)) : nullptr;
    int32_t to;
    if (nl == nullptr) {
      if (!last || from >= end) break;
      to = end;
    } else to = static_cast<int32_t>(static_cast<const uint8_t*>(nl) - s);
    int32_t kind = lineKind(in, from, to, maxLength, in->finals + FINAL_STRIDE * finals, in->finalTimes + 2 * finals);
    if (kind == LINE_MISS && passed) break;  // read again by the next call, first
    if (kind == LINE_JS) passed = true;
    if (kind == LINE_FINAL || kind == LINE_MISS) finals++;
    int32_t* line = in->lines + 3 * count;
    line[0] = kind;
    line[1] = from;
    line[2] = to;
    count++;
    from = to + 1;
    if (kind == LINE_MISS) break;  // its reading must stay in the output until JavaScript took it
  }
  return Int(env, static_cast<int32_t>(count));
}

void DeleteDict(napi_env, void* data, void*) { delete static_cast<Dict*>(data); }

// newDict(): an empty dictionary cache (freed with its handle).
napi_value NewDict(napi_env env, napi_callback_info) {
  napi_value handle;
  napi_create_external(env, new Dict(), DeleteDict, nullptr, &handle);
  return handle;
}

Dict* dictOf(napi_env env, napi_value v) {
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_external) return nullptr;
  void* data = nullptr;
  napi_get_value_external(env, v, &data);
  return static_cast<Dict*>(data);
}

// useDict(dict | null): the dictionary `scan` looks final lines up in from now on.
napi_value UseDict(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  size_t argc = args(env, info, argv, 1);
  Instance* in = instance(env);
  in->dict = argc < 1 ? nullptr : dictOf(env, argv[0]);
  hold(env, in->dictRef, in->dict != nullptr ? argv[0] : nullptr);
  in->lastRead = false;
  return Int(env, in->dict != nullptr ? 1 : 0);
}

// clearDict(dict[, which]): forgets the ids of one of the decoder's dictionaries that started
// over (`which`: 0 actors, 1 objects, 2 words), or of all of them (no `which`).
napi_value ClearDict(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = args(env, info, argv, 2);
  Dict* d = argc < 1 ? nullptr : dictOf(env, argv[0]);
  if (d == nullptr) return Int(env, 0);
  int32_t which = -1;
  if (argc >= 2 && napi_get_value_int32(env, argv[1], &which) != napi_ok) which = -1;
  if (which == -1 || which == 0) d->actors.clear();
  if (which == -1 || which == 1) d->objects.clear();
  if (which == -1 || which == 2)
    for (Table& t : d->words) t.clear();
  return Int(env, 1);
}

// remember(kind, id): the id JavaScript found for dictionary `kind` (an ID_* index) of the last
// line scanned (whose value it was not in the dictionary in use); 1 when kept.
napi_value Remember(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = args(env, info, argv, 2);
  Instance* in = instance(env);
  int32_t kind = -1, id = -1;
  if (argc < 2 || in->dict == nullptr || !in->lastRead || napi_get_value_int32(env, argv[0], &kind) != napi_ok ||
      napi_get_value_int32(env, argv[1], &id) != napi_ok || kind < 0 || kind >= ID_COUNT || id < 0 || in->last[OUT_IDS + kind] != -1)
    return Int(env, 0);
  Key key;
  if (!keyOf(in, kind, in->last, key)) return Int(env, 0);
  tableOf(in->dict, kind).insert(key, id);
  return Int(env, 1);
}

void Finalize(napi_env env, void* data, void*) {
  Instance* in = static_cast<Instance*>(data);
  for (napi_ref* ref : {&in->pieceRef, &in->outRef, &in->timesRef, &in->dictRef, &in->linesRef, &in->finalsRef, &in->finalTimesRef}) hold(env, *ref, nullptr);
  delete in;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_set_instance_data(env, new Instance(), Finalize, nullptr);
  // As a plain assignment would define them (tests wrap them to count calls).
  const napi_property_attributes PLAIN = static_cast<napi_property_attributes>(napi_writable | napi_enumerable | napi_configurable);
  const napi_property_descriptor functions[] = {
      {"setPiece", nullptr, SetPiece, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"setOutput", nullptr, SetOutput, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"scan", nullptr, Scan, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"newDict", nullptr, NewDict, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"useDict", nullptr, UseDict, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"clearDict", nullptr, ClearDict, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"remember", nullptr, Remember, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"setBatch", nullptr, SetBatch, nullptr, nullptr, nullptr, PLAIN, nullptr},
      {"scanLines", nullptr, ScanLines, nullptr, nullptr, nullptr, PLAIN, nullptr},
  };
  napi_define_properties(env, exports, sizeof(functions) / sizeof(functions[0]), functions);
  napi_value size;
  napi_create_int32(env, OUT_SIZE, &size);
  napi_set_named_property(env, exports, "outputSize", size);
  return exports;
}

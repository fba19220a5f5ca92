// libpq, the PostgreSQL project's own client library (Debian's libpq-dev,
// Homebrew's libpq): TLS through the system's OpenSSL, nothing compiled here.
#include <libpq-fe.h>

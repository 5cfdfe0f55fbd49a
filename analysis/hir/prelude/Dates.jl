# zy's prelude: Julia's Dates, written in Julia. The instants are Int64s as Julia's: a `Date`
# the rata die day (0001-01-01 is day 1, a Monday), a `DateTime` the milliseconds since the
# start of day 0, a `Time` the nanoseconds since midnight, in the proleptic Gregorian calendar.
# A `DateFormat` is its pattern split into codes, widths and literal texts. Dates are constants
# to the AD: no gradient flows through them.

export Period, DatePeriod, TimePeriod, Year, Month, Week, Day, Hour, Minute, Second,
    Millisecond, Microsecond, Nanosecond, TimeType, Date, DateTime, Time, DateFormat,
    year, month, day, hour, minute, second, millisecond, microsecond, nanosecond, dayofmonth,
    yearmonthday, yearmonth, monthday, dayofweek, dayofyear, daysinmonth, daysinyear,
    isleapyear, week, quarterofyear, dayname, dayabbr, monthname, monthabbr,
    firstdayofmonth, lastdayofmonth, firstdayofweek, lastdayofweek, firstdayofyear,
    lastdayofyear, tonext, toprev, now, today, UTC, unix2datetime, datetime2unix,
    Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday,
    January, February, March, April, May, June, July, August, September, October, November,
    December

import Base: +, -, *, ==, <, <=, isless, div, fld, mod, rem, zero, iszero, abs, string,
    length, isempty, first, last, step, getindex, collect, in

"""
    Period

A length of time counted in one unit: `Year`, `Month`, `Week`, `Day`, `Hour`, `Minute`,
`Second`, `Millisecond`, `Microsecond`, `Nanosecond`, each an Int64 `value`.
"""
abstract type Period end
"""
    DatePeriod

`Year`, `Month`, `Week` and `Day`.
"""
abstract type DatePeriod <: Period end
"""
    TimePeriod

`Hour`, `Minute`, `Second`, `Millisecond`, `Microsecond` and `Nanosecond`.
"""
abstract type TimePeriod <: Period end

"""
    Year(n)

`n` years.
"""
struct Year <: DatePeriod
    value::Int64
end
"""
    Month(n)

`n` months.
"""
struct Month <: DatePeriod
    value::Int64
end
"""
    Week(n)

`n` weeks.
"""
struct Week <: DatePeriod
    value::Int64
end
"""
    Day(n)

`n` days.
"""
struct Day <: DatePeriod
    value::Int64
end
"""
    Hour(n)

`n` hours.
"""
struct Hour <: TimePeriod
    value::Int64
end
"""
    Minute(n)

`n` minutes.
"""
struct Minute <: TimePeriod
    value::Int64
end
"""
    Second(n)

`n` seconds.
"""
struct Second <: TimePeriod
    value::Int64
end
"""
    Millisecond(n)

`n` milliseconds.
"""
struct Millisecond <: TimePeriod
    value::Int64
end
"""
    Microsecond(n)

`n` microseconds.
"""
struct Microsecond <: TimePeriod
    value::Int64
end
"""
    Nanosecond(n)

`n` nanoseconds.
"""
struct Nanosecond <: TimePeriod
    value::Int64
end

# The argument that marks a constructor taking the instant itself.
struct _Raw end
const _RAW = _Raw()

"""
    TimeType

`Date`, `DateTime` and `Time`.
"""
abstract type TimeType end

"""
    Date(y, m = 1, d = 1), Date(s), Date(s, format), Date(dt::DateTime)

A day of the proleptic Gregorian calendar, held as its rata die number.
"""
struct Date <: TimeType
    instant::Int64
    Date(::_Raw, days::Int64) = new(days)
end

"""
    DateTime(y, m = 1, d = 1, h = 0, mi = 0, s = 0, ms = 0), DateTime(s), DateTime(d, t)

A moment to the millisecond, held as the milliseconds since the start of rata die day 0.
"""
struct DateTime <: TimeType
    instant::Int64
    DateTime(::_Raw, ms::Int64) = new(ms)
end

"""
    Time(h, mi = 0, s = 0, ms = 0, us = 0, ns = 0), Time(s), Time(dt::DateTime)

A time of day to the nanosecond, held as the nanoseconds since midnight.
"""
struct Time <: TimeType
    instant::Int64
    Time(::_Raw, ns::Int64) = new(ns)
end

# Milliseconds and nanoseconds in a day.
const _MS_PER_DAY = 86_400_000
const _NS_PER_DAY = 86_400_000_000_000

"""
    value(x)

The Int64 a period counts, or the instant a `Date` (days), `DateTime` (milliseconds) or `Time`
(nanoseconds) is.
"""
value(p::Period) = p.value
value(t::TimeType) = t.instant

# ---- The calendar ----

"""
    isleapyear(y), isleapyear(d)

Whether the year has a 29 February.
"""
isleapyear(y::Integer) = (y % 4 == 0) && ((y % 100 != 0) || (y % 400 == 0))
isleapyear(t::TimeType) = isleapyear(year(t))

"""
    daysinmonth(y, m), daysinmonth(d)

The days in month `m` of year `y`.
"""
function daysinmonth(y::Integer, m::Integer)
    m == 2 && return isleapyear(y) ? 29 : 28
    return (m == 4 || m == 6 || m == 9 || m == 11) ? 30 : 31
end
daysinmonth(t::TimeType) = daysinmonth(year(t), month(t))

"""
    daysinyear(y), daysinyear(d)

365, or 366 in a leap year.
"""
daysinyear(y::Integer) = isleapyear(y) ? 366 : 365
daysinyear(t::TimeType) = daysinyear(year(t))

# The rata die day of `y-m-d` (any month and day in range): the days of the years before
# `y` counted from a March-based year, so that the leap day falls last.
function _rata_die(y::Int64, m::Int64, d::Int64)
    a = m <= 2 ? y - 1 : y
    shifted = m <= 2 ? m + 9 : m - 3                  # March is 0, February 11
    before = (153 * shifted + 2) ÷ 5                  # days in the months before it
    return 365 * a + fld(a, 4) - fld(a, 100) + fld(a, 400) + before + d - 306
end

# `(y, m, d)` of a rata die day: the inverse of `_rata_die`, by 400-year cycles.
function _civil(days::Int64)
    z = days + 305                                     # days since 0000-03-01
    cycle = fld(z, 146097)
    doc = z - cycle * 146097                           # day of the 400-year cycle
    yoc = (doc - doc ÷ 1460 + doc ÷ 36524 - doc ÷ 146096) ÷ 365
    doy = doc - (365 * yoc + yoc ÷ 4 - yoc ÷ 100)      # day of the March-based year
    shifted = (5 * doy + 2) ÷ 153
    d = doy - (153 * shifted + 2) ÷ 5 + 1
    m = shifted < 10 ? shifted + 3 : shifted - 9
    y = yoc + 400 * cycle + (m <= 2 ? 1 : 0)
    return (y, m, d)
end

_days(d::Date) = d.instant
_days(dt::DateTime) = fld(dt.instant, _MS_PER_DAY)

# Julia's checks of the parts, the first one out of range named.
function _check_date(y::Int64, m::Int64, d::Int64)
    1 <= m <= 12 || throw(ArgumentError("Month: $m out of range (1:12)"))
    n = daysinmonth(y, m)
    1 <= d <= n || throw(ArgumentError("Day: $d out of range (1:$n)"))
    return nothing
end

function _check_time(h::Int64, mi::Int64, s::Int64, ms::Int64)
    (0 <= h <= 23 || (h == 24 && mi == 0 && s == 0 && ms == 0)) ||
        throw(ArgumentError("Hour: $h out of range (0:23)"))
    0 <= mi <= 59 || throw(ArgumentError("Minute: $mi out of range (0:59)"))
    0 <= s <= 59 || throw(ArgumentError("Second: $s out of range (0:59)"))
    0 <= ms <= 999 || throw(ArgumentError("Millisecond: $ms out of range (0:999)"))
    return nothing
end

function Date(y::Integer, m::Integer = 1, d::Integer = 1)
    _check_date(Int64(y), Int64(m), Int64(d))
    return Date(_RAW, _rata_die(Int64(y), Int64(m), Int64(d)))
end
Date(y::Year, m::Month = Month(1), d::Day = Day(1)) = Date(y.value, m.value, d.value)
Date(dt::DateTime) = Date(_RAW, _days(dt))
Date(d::Date) = d

function DateTime(y::Integer, m::Integer = 1, d::Integer = 1, h::Integer = 0, mi::Integer = 0,
        s::Integer = 0, ms::Integer = 0)
    _check_date(Int64(y), Int64(m), Int64(d))
    _check_time(Int64(h), Int64(mi), Int64(s), Int64(ms))
    days = _rata_die(Int64(y), Int64(m), Int64(d))
    return DateTime(_RAW, days * _MS_PER_DAY + ((Int64(h) * 60 + mi) * 60 + s) * 1000 + ms)
end
DateTime(d::Date) = DateTime(_RAW, d.instant * _MS_PER_DAY)
DateTime(d::Date, t::Time) = DateTime(_RAW, d.instant * _MS_PER_DAY + fld(t.instant, 1_000_000))
DateTime(dt::DateTime) = dt

function Time(h::Integer, mi::Integer = 0, s::Integer = 0, ms::Integer = 0, us::Integer = 0,
        ns::Integer = 0)
    0 <= h <= 23 || throw(ArgumentError("Hour: $h out of range (0:23)"))
    _check_time(Int64(h), Int64(mi), Int64(s), Int64(ms))
    0 <= us <= 999 || throw(ArgumentError("Microsecond: $us out of range (0:999)"))
    0 <= ns <= 999 || throw(ArgumentError("Nanosecond: $ns out of range (0:999)"))
    seconds = (Int64(h) * 60 + mi) * 60 + s
    return Time(_RAW, ((seconds * 1000 + ms) * 1000 + us) * 1000 + ns)
end
Time(dt::DateTime) = Time(_RAW, mod(dt.instant, _MS_PER_DAY) * 1_000_000)
Time(t::Time) = t

# ---- The clock ----

"""
    UTC

The time zone of `now(UTC)`.
"""
struct UTC end

# `DateTime(1970).instant`: the Unix epoch.
const _UNIX_EPOCH = 62_135_683_200_000

"""
    unix2datetime(x), datetime2unix(dt)

The `DateTime` `x` seconds after 1970-01-01T00:00:00, and back.
"""
unix2datetime(x::Real) = DateTime(_RAW, _UNIX_EPOCH + round(Int64, 1000 * x))
datetime2unix(dt::DateTime) = (dt.instant - _UNIX_EPOCH) / 1000

"""
    now(UTC), now(), today()

The clock's time in UTC; the local time and date, in the machine's time zone (`TZ`, else the
system's) as Julia's `now()` reads it: whole seconds shifted by the zone's offset, the
milliseconds truncated.
"""
now(::Type{UTC}) = unix2datetime(time())
function now()
    t = time()
    s = floor(Int64, t)
    ms = floor(Int64, 1000 * (t - s))
    return DateTime(_RAW, _UNIX_EPOCH + 1000 * (s + _utc_offset(s)) + ms)
end
today() = Date(now())

# ---- Parts ----

"""
    yearmonthday(d)

`(year, month, day)` of a `Date` or `DateTime`.
"""
yearmonthday(t::Union{Date, DateTime}) = _civil(_days(t))
"""
    yearmonth(d)

`(year, month)` of a `Date` or `DateTime`.
"""
yearmonth(t::Union{Date, DateTime}) = _civil(_days(t))[1:2]
"""
    monthday(d)

`(month, day)` of a `Date` or `DateTime`.
"""
monthday(t::Union{Date, DateTime}) = _civil(_days(t))[2:3]
"""
    year(d), month(d), day(d)

The year, month (1 to 12) and day of the month of a `Date` or `DateTime`.
"""
year(t::Union{Date, DateTime}) = _civil(_days(t))[1]
month(t::Union{Date, DateTime}) = _civil(_days(t))[2]
day(t::Union{Date, DateTime}) = _civil(_days(t))[3]
"""
    dayofmonth(d)

The day of the month: `day(d)`.
"""
dayofmonth(t::Union{Date, DateTime}) = day(t)

# Milliseconds since midnight of a `DateTime`, nanoseconds of a `Time`.
_ms_of_day(dt::DateTime) = mod(dt.instant, _MS_PER_DAY)
_ms_of_day(t::Time) = t.instant ÷ 1_000_000

"""
    hour(t), minute(t), second(t), millisecond(t)

The parts of the time of day of a `DateTime` or `Time`.
"""
hour(t::Union{DateTime, Time}) = _ms_of_day(t) ÷ 3_600_000
minute(t::Union{DateTime, Time}) = _ms_of_day(t) ÷ 60_000 % 60
second(t::Union{DateTime, Time}) = _ms_of_day(t) ÷ 1000 % 60
millisecond(t::Union{DateTime, Time}) = _ms_of_day(t) % 1000
"""
    microsecond(t), nanosecond(t)

The parts below a millisecond of a `Time`.
"""
microsecond(t::Time) = t.instant ÷ 1000 % 1000
nanosecond(t::Time) = t.instant % 1000

"""
    dayofweek(d)

1 for a Monday up to 7 for a Sunday.
"""
dayofweek(t::Union{Date, DateTime}) = mod1(_days(t), 7)

"""
    dayofyear(d)

1 for 1 January.
"""
function dayofyear(t::Union{Date, DateTime})
    y = year(t)
    return _days(t) - _rata_die(y, 1, 1) + 1
end

"""
    quarterofyear(d)

1 for January to March up to 4 for October to December.
"""
quarterofyear(t::Union{Date, DateTime}) = (month(t) - 1) ÷ 3 + 1

"""
    week(d)

The ISO 8601 week of the year: weeks start on Monday, and week 1 holds the year's first
Thursday.
"""
function week(t::Union{Date, DateTime})
    days = _days(t)
    thursday = days - dayofweek(t) + 4
    y = _civil(thursday)[1]
    return (thursday - _rata_die(y, 1, 1)) ÷ 7 + 1
end

const Monday = 1
const Tuesday = 2
const Wednesday = 3
const Thursday = 4
const Friday = 5
const Saturday = 6
const Sunday = 7

const January = 1
const February = 2
const March = 3
const April = 4
const May = 5
const June = 6
const July = 7
const August = 8
const September = 9
const October = 10
const November = 11
const December = 12

const _DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
const _MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December"]

"""
    dayname(d), dayname(i)

The English name of the day of the week (`"Monday"`), of a date or of its number 1 to 7.
"""
dayname(i::Integer) = _DAY_NAMES[i]
dayname(t::Union{Date, DateTime}) = dayname(dayofweek(t))
"""
    dayabbr(d), dayabbr(i)

The day's name in three letters (`"Mon"`).
"""
dayabbr(i::Integer) = first(_DAY_NAMES[i], 3)
dayabbr(t::Union{Date, DateTime}) = dayabbr(dayofweek(t))
"""
    monthname(d), monthname(i)

The English name of the month (`"January"`), of a date or of its number 1 to 12.
"""
monthname(i::Integer) = _MONTH_NAMES[i]
monthname(t::Union{Date, DateTime}) = monthname(month(t))
"""
    monthabbr(d), monthabbr(i)

The month's name in three letters (`"Jan"`).
"""
monthabbr(i::Integer) = first(_MONTH_NAMES[i], 3)
monthabbr(t::Union{Date, DateTime}) = monthabbr(month(t))

# ---- Periods ----

# A period's unit counted in the smallest unit of its kind: months for a year or a month,
# nanoseconds for the others.
_unit_size(::Year) = 12
_unit_size(::Month) = 1
_unit_size(::Week) = 604_800_000_000_000
_unit_size(::Day) = _NS_PER_DAY
_unit_size(::Hour) = 3_600_000_000_000
_unit_size(::Minute) = 60_000_000_000
_unit_size(::Second) = 1_000_000_000
_unit_size(::Millisecond) = 1_000_000
_unit_size(::Microsecond) = 1000
_unit_size(::Nanosecond) = 1
# Is the period counted in months (a year or a month) rather than in a fixed time?
_calendar(p::Period) = p isa Year || p isa Month

# The unit a period is printed with (`1 day`, `2 days`).
_unit(::Year) = "year"
_unit(::Month) = "month"
_unit(::Week) = "week"
_unit(::Day) = "day"
_unit(::Hour) = "hour"
_unit(::Minute) = "minute"
_unit(::Second) = "second"
_unit(::Millisecond) = "millisecond"
_unit(::Microsecond) = "microsecond"
_unit(::Nanosecond) = "nanosecond"

# A period of the same type as `p` counting `n`.
_like(::Year, n::Int64) = Year(n)
_like(::Month, n::Int64) = Month(n)
_like(::Week, n::Int64) = Week(n)
_like(::Day, n::Int64) = Day(n)
_like(::Hour, n::Int64) = Hour(n)
_like(::Minute, n::Int64) = Minute(n)
_like(::Second, n::Int64) = Second(n)
_like(::Millisecond, n::Int64) = Millisecond(n)
_like(::Microsecond, n::Int64) = Microsecond(n)
_like(::Nanosecond, n::Int64) = Nanosecond(n)

+(x::P, y::P) where {P <: Period} = _like(x, x.value + y.value)
-(x::P, y::P) where {P <: Period} = _like(x, x.value - y.value)
-(x::Period) = _like(x, -x.value)
*(x::Period, n::Integer) = _like(x, x.value * n)
*(n::Integer, x::Period) = _like(x, n * x.value)
div(x::Period, n::Integer) = _like(x, div(x.value, n))
div(x::P, y::P) where {P <: Period} = div(x.value, y.value)
fld(x::P, y::P) where {P <: Period} = fld(x.value, y.value)
mod(x::P, y::P) where {P <: Period} = _like(x, mod(x.value, y.value))
rem(x::P, y::P) where {P <: Period} = _like(x, rem(x.value, y.value))
abs(x::Period) = _like(x, abs(x.value))
zero(x::Period) = _like(x, 0)
iszero(x::Period) = x.value == 0

isless(x::P, y::P) where {P <: Period} = x.value < y.value
<(x::P, y::P) where {P <: Period} = x.value < y.value
<=(x::P, y::P) where {P <: Period} = x.value <= y.value
# Periods of one kind are equal when they span the same time, counted in the finer unit
# (`Day(1) == Hour(24)`, `Year(1) == Month(12)`); a year or month is no fixed period.
function ==(x::Period, y::Period)
    _calendar(x) == _calendar(y) || return false
    ux = _unit_size(x)
    uy = _unit_size(y)
    return ux >= uy ? x.value * (ux ÷ uy) == y.value : x.value == y.value * (uy ÷ ux)
end

# ---- Arithmetic of instants ----

# `t` moved by `n` months, its day clamped to the new month's last (`Jan 31 + 1 month` is the
# last of February), its time of day kept.
function _add_months(t::Date, n::Int64)
    y, m, d = yearmonthday(t)
    k = 12 * y + (m - 1) + n
    ny = fld(k, 12)
    nm = mod(k, 12) + 1
    return Date(_RAW, _rata_die(ny, nm, min(d, daysinmonth(ny, nm))))
end
_add_months(t::DateTime, n::Int64) =
    DateTime(_RAW, _add_months(Date(t), n).instant * _MS_PER_DAY + _ms_of_day(t))

+(t::Union{Date, DateTime}, p::Union{Year, Month}) = _add_months(t, p.value * _unit_size(p))
-(t::Union{Date, DateTime}, p::Union{Year, Month}) = _add_months(t, -p.value * _unit_size(p))
+(t::Date, p::Union{Week, Day}) = Date(_RAW, t.instant + p.value * (_unit_size(p) ÷ _NS_PER_DAY))
-(t::Date, p::Union{Week, Day}) = Date(_RAW, t.instant - p.value * (_unit_size(p) ÷ _NS_PER_DAY))
+(t::DateTime, p::Union{Week, Day, Hour, Minute, Second, Millisecond}) =
    DateTime(_RAW, t.instant + p.value * (_unit_size(p) ÷ 1_000_000))
-(t::DateTime, p::Union{Week, Day, Hour, Minute, Second, Millisecond}) =
    DateTime(_RAW, t.instant - p.value * (_unit_size(p) ÷ 1_000_000))
+(t::Time, p::TimePeriod) = Time(_RAW, mod(t.instant + p.value * _unit_size(p), _NS_PER_DAY))
-(t::Time, p::TimePeriod) = Time(_RAW, mod(t.instant - p.value * _unit_size(p), _NS_PER_DAY))
+(p::Period, t::TimeType) = t + p
+(d::Date, t::Time) = DateTime(d, t)
+(t::Time, d::Date) = DateTime(d, t)

-(x::Date, y::Date) = Day(x.instant - y.instant)
-(x::DateTime, y::DateTime) = Millisecond(x.instant - y.instant)
-(x::Time, y::Time) = Nanosecond(x.instant - y.instant)

# Instants of one type compare by their value; a `Date` with a `DateTime` as its midnight.
==(x::Date, y::Date) = x.instant == y.instant
==(x::DateTime, y::DateTime) = x.instant == y.instant
==(x::Time, y::Time) = x.instant == y.instant
==(x::Date, y::DateTime) = DateTime(x) == y
==(x::DateTime, y::Date) = x == DateTime(y)
isless(x::Date, y::Date) = x.instant < y.instant
isless(x::DateTime, y::DateTime) = x.instant < y.instant
isless(x::Time, y::Time) = x.instant < y.instant
isless(x::Date, y::DateTime) = isless(DateTime(x), y)
isless(x::DateTime, y::Date) = isless(x, DateTime(y))
<(x::TimeType, y::TimeType) = isless(x, y)
<=(x::TimeType, y::TimeType) = !isless(y, x)

# ---- Adjusters ----

"""
    firstdayofmonth(d), lastdayofmonth(d)

The first and last day of the month of `d` (a `Date`, or a `DateTime` at midnight).
"""
firstdayofmonth(d::Date) = Date(_RAW, d.instant - day(d) + 1)
firstdayofmonth(dt::DateTime) = DateTime(firstdayofmonth(Date(dt)))
lastdayofmonth(d::Date) = Date(_RAW, d.instant - day(d) + daysinmonth(d))
lastdayofmonth(dt::DateTime) = DateTime(lastdayofmonth(Date(dt)))
"""
    firstdayofweek(d), lastdayofweek(d)

The Monday and the Sunday of the week of `d`.
"""
firstdayofweek(d::Date) = Date(_RAW, d.instant - dayofweek(d) + 1)
firstdayofweek(dt::DateTime) = DateTime(firstdayofweek(Date(dt)))
lastdayofweek(d::Date) = Date(_RAW, d.instant + 7 - dayofweek(d))
lastdayofweek(dt::DateTime) = DateTime(lastdayofweek(Date(dt)))
"""
    firstdayofyear(d), lastdayofyear(d)

1 January and 31 December of the year of `d`.
"""
firstdayofyear(d::Date) = Date(year(d), 1, 1)
firstdayofyear(dt::DateTime) = DateTime(firstdayofyear(Date(dt)))
lastdayofyear(d::Date) = Date(year(d), 12, 31)
lastdayofyear(dt::DateTime) = DateTime(lastdayofyear(Date(dt)))

"""
    tonext(d, dow; same = false), toprev(d, dow; same = false)

The next (previous) day after (before) `d` that is the day of the week `dow` (1 for Monday to
7 for Sunday); `d` itself if it is one and `same`.
"""
function tonext(d::Date, dow::Integer; same::Bool = false)
    ahead = mod(dow - dayofweek(d), 7)
    return d + Day(ahead == 0 && !same ? 7 : ahead)
end
function toprev(d::Date, dow::Integer; same::Bool = false)
    back = mod(dayofweek(d) - dow, 7)
    return d - Day(back == 0 && !same ? 7 : back)
end
tonext(dt::DateTime, dow::Integer; same::Bool = false) =
    dt + Day(tonext(Date(dt), dow; same = same).instant - _days(dt))
toprev(dt::DateTime, dow::Integer; same::Bool = false) =
    dt - Day(_days(dt) - toprev(Date(dt), dow; same = same).instant)

# ---- Ranges ----

# Nanoseconds in one unit of an instant's value.
_instant_ns(::Date) = _NS_PER_DAY
_instant_ns(::DateTime) = 1_000_000

# The most steps `s` from `a` that do not pass `b` (-1 if `b` is behind `a`).
function _steps(a::T, s::Period, b::T) where {T <: Union{Date, DateTime}}
    s.value == 0 && throw(ArgumentError("step cannot be zero"))
    n = fld(b.instant - a.instant, s.value * _unit_size(s) ÷ _instant_ns(a))
    return max(n, -1)
end
function _steps(a::T, s::Union{Year, Month}, b::T) where {T <: Union{Date, DateTime}}
    s.value == 0 && throw(ArgumentError("step cannot be zero"))
    ya, ma = yearmonth(a)
    yb, mb = yearmonth(b)
    n = fld(12 * (yb - ya) + mb - ma, s.value * _unit_size(s))
    while n >= 0 && (s.value > 0 ? a + s * n > b : a + s * n < b)
        n -= 1
    end
    return max(n, -1)
end

Base.:(:)(a::T, s::Period, b::T) where {T <: Union{Date, DateTime}} =
    StepRange(a, s, _steps(a, s, b) < 0 ? b : a + s * _steps(a, s, b))
length(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} =
    _steps(r.start, r.step, r.stop) + 1
isempty(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} = length(r) == 0
first(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} = r.start
last(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} = r.stop
step(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} = r.step
function getindex(r::StepRange{T, P}, i::Int) where {T <: Union{Date, DateTime}, P <: Period}
    1 <= i <= length(r) || throw(BoundsError(r, i))
    return r.start + r.step * (i - 1)
end
collect(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} =
    [r.start + r.step * k for k in 0:(length(r) - 1)]
in(t::T, r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} =
    any(==(t), collect(r))
Base._loop_length(r::StepRange{T, P}) where {T <: Union{Date, DateTime}, P <: Period} = length(r)
Base._loop_elem(r::StepRange{T, P}, k::Int) where {T <: Union{Date, DateTime}, P <: Period} =
    r.start + r.step * k

# ---- Text ----

# `n` as at least `width` digits, zeros in front.
_digits(n::Integer, width::Int) = string(n; pad = width)

function string(d::Date)
    y, m, dd = yearmonthday(d)
    ys = y < 0 ? "-" * _digits(-y, 4) : _digits(y, 4)
    return ys * "-" * _digits(m, 2) * "-" * _digits(dd, 2)
end
function string(dt::DateTime)
    text = string(Date(dt)) * "T" * _digits(hour(dt), 2) * ":" * _digits(minute(dt), 2) * ":" *
        _digits(second(dt), 2)
    ms = millisecond(dt)
    return ms == 0 ? text : text * "." * _fraction(ms)
end
function string(t::Time)
    text = _digits(hour(t), 2) * ":" * _digits(minute(t), 2) * ":" * _digits(second(t), 2)
    ns = t.instant % 1_000_000_000
    ns == 0 && return text
    return text * "." * rstrip(_digits(ns, 9), '0')
end
# `2 days`: each period type's own method, by which `string` and `print` write it.
_period_text(p::Period) = string(p.value) * " " * _unit(p) * (abs(p.value) == 1 ? "" : "s")
string(p::Year) = _period_text(p)
string(p::Month) = _period_text(p)
string(p::Week) = _period_text(p)
string(p::Day) = _period_text(p)
string(p::Hour) = _period_text(p)
string(p::Minute) = _period_text(p)
string(p::Second) = _period_text(p)
string(p::Millisecond) = _period_text(p)
string(p::Microsecond) = _period_text(p)
string(p::Nanosecond) = _period_text(p)

# Milliseconds after the point, as Julia's `s` code writes them: `5` for 500, `25` for 250.
function _fraction(ms::Integer)
    ms % 100 == 0 && return string(ms ÷ 100)
    ms % 10 == 0 && return _digits(ms ÷ 10, 2)
    return _digits(ms, 3)
end

# ---- Formats ----

"""
    DateFormat(pattern), dateformat"pattern"

How dates are read and written: the codes `y` and `Y` (year), `m` (month), `u` and `U` (month
name, short and full), `d` (day), `e` and `E` (day name), `H`, `M`, `S` (hour, minute,
second) and `s` (milliseconds), a run of one code its width; any other character (or one
after `\\`) is literal text. A code followed directly by another has a fixed width.
"""
struct DateFormat
    pattern::String
    codes::Vector{Char}
    widths::Vector{Int}
    fixed::Vector{Bool}
    texts::Vector{String}
end

const _CODES = "yYmuUeEdHMSs"
# The code of a literal text in a `DateFormat`.
const _TEXT = '\0'

function DateFormat(pattern::AbstractString)
    chars = collect(pattern)
    codes = Char[]
    widths = Int[]
    texts = String[]
    text = ""
    i = 1
    while i <= length(chars)
        c = chars[i]
        if c == '\\' && i < length(chars)
            text *= string(chars[i + 1])
            i += 2
        elseif c in _CODES
            if !isempty(text)
                push!(codes, _TEXT)
                push!(widths, 0)
                push!(texts, text)
                text = ""
            end
            j = i
            while j < length(chars) && chars[j + 1] == c
                j += 1
            end
            push!(codes, c)
            push!(widths, j - i + 1)
            push!(texts, "")
            i = j + 1
        else
            text *= string(c)
            i += 1
        end
    end
    if !isempty(text)
        push!(codes, _TEXT)
        push!(widths, 0)
        push!(texts, text)
    end
    fixed = [codes[k] != _TEXT && k < length(codes) && codes[k + 1] != _TEXT for k in eachindex(codes)]
    return DateFormat(String(pattern), codes, widths, fixed, texts)
end

# How Julia names a part of a format in its parse errors: `DatePart(yyyy)`, `Delim(-)`.
function _directive(df::DateFormat, k::Int)
    c = df.codes[k]
    c == _TEXT && return "Delim(" * df.texts[k] * ")"
    return "DatePart(" * repeat(string(c), df.widths[k]) * ")"
end

# The number of the month or day named by `word` (`"jan"`, `"Monday"`), 0 for none.
function _name_number(names::Vector{String}, word::String, short::Bool)
    for k in eachindex(names)
        name = short ? first(names[k], 3) : names[k]
        lowercase(name) == lowercase(word) && return k
    end
    return 0
end

# Where a numeric code's value goes in the parts `[y, m, d, H, M, S, ms]`.
_slot(c::Char) = c == 'y' || c == 'Y' ? 1 : c == 'm' ? 2 : c == 'd' ? 3 : c == 'H' ? 4 :
    c == 'M' ? 5 : c == 'S' ? 6 : 7

# The parts `[y, m, d, H, M, S, ms]` that `text` writes in the format `df`; those after the
# end of the text keep their defaults, as Julia's parser.
function _parse_parts(text::AbstractString, df::DateFormat)
    chars = collect(text)
    n = length(chars)
    n == 0 && throw(ArgumentError("Cannot parse an empty string as a Date or Time"))
    parts = [1, 1, 1, 0, 0, 0, 0]
    i = 1
    k = 1
    while k <= length(df.codes) && i <= n
        c = df.codes[k]
        start = i
        if c == _TEXT
            for ch in df.texts[k]
                (i <= n && chars[i] == ch) || throw(ArgumentError(
                    "Unable to parse date time. Expected directive $(_directive(df, k)) at char $start"))
                i += 1
            end
        elseif c in "uUeE"
            while i <= n && isletter(chars[i])
                i += 1
            end
            names = c in "uU" ? _MONTH_NAMES : _DAY_NAMES
            v = _name_number(names, String(chars[start:(i - 1)]), c in "ue")
            v == 0 && throw(ArgumentError(
                "Unable to parse date time. Expected directive $(_directive(df, k)) at char $start"))
            if c in "uU"
                parts[2] = v
            end
        else
            limit = df.fixed[k] ? min(n, i + df.widths[k] - 1) : n
            while i <= limit && isdigit(chars[i])
                i += 1
            end
            digits = i - start
            (digits == 0 || (df.fixed[k] && digits != df.widths[k])) && throw(ArgumentError(
                "Unable to parse date time. Expected directive $(_directive(df, k)) at char $start"))
            v = parse(Int, String(chars[start:(i - 1)]))
            if c == 's'
                if digits > 3
                    scale = 10^(digits - 3)
                    v % scale == 0 || throw(InexactError(:convert, Int64, v))
                    v = v ÷ scale
                else
                    v = v * 10^(3 - digits)
                end
            end
            parts[_slot(c)] = v
        end
        k += 1
    end
    i <= n && throw(ArgumentError("Found extra characters at the end of date time string"))
    return parts
end

Date(text::AbstractString, df::DateFormat = DateFormat("yyyy-mm-dd")) =
    Date(_parse_parts(text, df)[1:3]...)
Date(text::AbstractString, pattern::AbstractString) = Date(text, DateFormat(pattern))
function DateTime(text::AbstractString, df::DateFormat = DateFormat("yyyy-mm-dd\\THH:MM:SS.s"))
    p = _parse_parts(text, df)
    return DateTime(p[1], p[2], p[3], p[4], p[5], p[6], p[7])
end
DateTime(text::AbstractString, pattern::AbstractString) = DateTime(text, DateFormat(pattern))
function Time(text::AbstractString, df::DateFormat = DateFormat("HH:MM:SS.s"))
    p = _parse_parts(text, df)
    return Time(p[4], p[5], p[6], p[7])
end
Time(text::AbstractString, pattern::AbstractString) = Time(text, DateFormat(pattern))

"""
    format(t, df), format(t, pattern)

`t` written in the format `df` (a `DateFormat` or its pattern): a `y` code keeps the last
digits of the year, the other numbers are padded with zeros to the code's width.
"""
function format(t::TimeType, df::DateFormat)
    out = ""
    for k in eachindex(df.codes)
        c = df.codes[k]
        w = df.widths[k]
        if c == _TEXT
            out *= df.texts[k]
        elseif c == 'y'
            out *= last(_digits(year(t), w), w)
        elseif c == 'Y'
            out *= _digits(year(t), w)
        elseif c == 'm'
            out *= _digits(month(t), w)
        elseif c == 'd'
            out *= _digits(day(t), w)
        elseif c == 'H'
            out *= _digits(hour(t), w)
        elseif c == 'M'
            out *= _digits(minute(t), w)
        elseif c == 'S'
            out *= _digits(second(t), w)
        elseif c == 's'
            out *= rpad(_fraction(millisecond(t)), w, '0')
        elseif c == 'u'
            out *= monthabbr(month(t))
        elseif c == 'U'
            out *= monthname(month(t))
        elseif c == 'e'
            out *= dayabbr(dayofweek(t))
        else
            out *= dayname(dayofweek(t))
        end
    end
    return out
end
format(t::TimeType, pattern::AbstractString) = format(t, DateFormat(pattern))

# ---- Show ----

# `print` and `string` write the text alone (`2013-07-01`), `show` the constructor that reads
# it (`Date("2013-07-01")`), as Julia 1.11; a period prints as `2 days` and shows as `Day(2)`.
Base.show(io::IO, d::Date) = print(io, "Date(\"", string(d), "\")")
Base.show(io::IO, dt::DateTime) = print(io, "DateTime(\"", string(dt), "\")")
function Base.show(io::IO, t::Time)
    parts = [hour(t), minute(t), second(t), millisecond(t), microsecond(t), nanosecond(t)]
    n = something(findlast(!iszero, parts), 1)
    print(io, "Time(", join(parts[1:n], ", "), ")")
end
Base.show(io::IO, p::Year) = print(io, "Year(", p.value, ")")
Base.show(io::IO, p::Month) = print(io, "Month(", p.value, ")")
Base.show(io::IO, p::Week) = print(io, "Week(", p.value, ")")
Base.show(io::IO, p::Day) = print(io, "Day(", p.value, ")")
Base.show(io::IO, p::Hour) = print(io, "Hour(", p.value, ")")
Base.show(io::IO, p::Minute) = print(io, "Minute(", p.value, ")")
Base.show(io::IO, p::Second) = print(io, "Second(", p.value, ")")
Base.show(io::IO, p::Millisecond) = print(io, "Millisecond(", p.value, ")")
Base.show(io::IO, p::Microsecond) = print(io, "Microsecond(", p.value, ")")
Base.show(io::IO, p::Nanosecond) = print(io, "Nanosecond(", p.value, ")")
Base.show(io::IO, df::DateFormat) = print(io, "dateformat\"", df.pattern, "\"")

# Julia's display (the REPL's) writes the text alone.
Base.show(io::IO, ::MIME"text/plain", d::Date) = print(io, string(d))
Base.show(io::IO, ::MIME"text/plain", dt::DateTime) = print(io, string(dt))
Base.show(io::IO, ::MIME"text/plain", t::Time) = print(io, string(t))
Base.show(io::IO, ::MIME"text/plain", p::Year) = print(io, string(p))

// Date handling: parsing ISO strings, adding business days, relative times and calendars.
const fixedNow = new Date('2024-03-15T12:00:00Z');

function addBusinessDays(date, days) {
  const d = new Date(date);
  let added = 0;
  while (added < days) {
    d.setUTCDate(d.getUTCDate() + 1);
    const dow = d.getUTCDay();
    if (dow !== 0 && dow !== 6) added++;
  }
  return d;
}

function relative(from, to) {
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const diffSec = (to - from) / 1000;
  const units = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60], ['second', 1]];
  for (const [unit, secs] of units) {
    if (Math.abs(diffSec) >= secs || unit === 'second') return rtf.format(Math.round(diffSec / secs), unit);
  }
}

function monthCalendar(year, month) {
  const first = new Date(Date.UTC(year, month, 1));
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const title = first.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const lines = [title.padStart(10 + title.length / 2), 'Mo Tu We Th Fr Sa Su'];
  let line = '   '.repeat((first.getUTCDay() + 6) % 7);
  for (let day = 1; day <= daysInMonth; day++) {
    line += String(day).padStart(2) + ' ';
    if ((first.getUTCDay() + 6 + day) % 7 === 0) { lines.push(line.trimEnd()); line = ''; }
  }
  if (line) lines.push(line.trimEnd());
  return lines.join('\n');
}

const events = ['2024-03-14T09:30:00Z', '2024-03-15T11:59:30Z', '2024-02-01T00:00:00Z', '2024-12-25T00:00:00Z', 'not a date'];
for (const iso of events) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) { console.log(`${iso.padEnd(22)} -> invalid date`); continue; }
  console.log(`${iso.padEnd(22)} -> ${relative(fixedNow, d)}`);
}

const due = addBusinessDays(fixedNow, 5);
console.log('Five business days after', fixedNow.toISOString().slice(0, 10), 'is', due.toISOString().slice(0, 10));

const fmt = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: 'Europe/Amsterdam' });
console.log('Amsterdam time:', fmt.format(fixedNow));
const msPerDay = 24 * 60 * 60 * 1000;
const dayOfYear = Math.floor((fixedNow - Date.UTC(2024, 0, 1)) / msPerDay) + 1;
console.log(`Day of year: ${dayOfYear}, leap year: ${new Date(Date.UTC(2024, 1, 29)).getUTCMonth() === 1}`);
console.log(monthCalendar(2024, 2));

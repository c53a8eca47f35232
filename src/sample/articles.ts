import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HOUR_MS } from '../lib/time.js';
import { escapeXml } from '../lib/escape-xml.js';

/**
 * A realistic `articles/` source tree dated relative to `now`: a registry of four licensed
 * sources, Markdown articles in the four locales, a JSON article file, one feed of each format and
 * a provider market snapshot that ingest must exclude. Everything is derived from `now` and fixed
 * text, so the same `now` writes byte-identical files.
 */
export async function writeSampleArticles(sourcesRoot: string, now: Date): Promise<void> {
  const root = path.join(sourcesRoot, 'articles');
  // Whole minutes, so that front matter reads like something an editor typed.
  const base = Math.floor(now.getTime() / 60_000) * 60_000;
  const files = new Map<string, string>();
  files.set('sources.yaml', SOURCES_YAML);
  for (const article of MARKDOWN_ARTICLES) {
    const instant = base - article.hoursAgo * HOUR_MS;
    files.set(`${article.locale}/${utcDate(instant)}-${article.slug}.md`, markdownFile(article, instant));
  }
  files.set(`en-US/${utcDate(base - 5 * HOUR_MS)}-closing-snapshot.md`, marketSnapshotFile(base - 5 * HOUR_MS));
  files.set('json/desk-briefs.json', jsonArticles(base));
  files.set('feeds/harbor-wire.xml', rssFeed(base));
  files.set('feeds/hanbit-economy.atom', atomFeed(base));
  files.set('feeds/sakura-markets.json', jsonFeed(base));
  for (const [relative, text] of files) {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text, 'utf8');
  }
}

type Locale = 'en-US' | 'ko-KR' | 'ja-JP' | 'zh-CN';

/** Each source publishes in its home market's time zone, as real feeds do. */
const OFFSET_MINUTES: Record<Locale, number> = { 'en-US': -300, 'ko-KR': 540, 'ja-JP': 540, 'zh-CN': 480 };

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function utcDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** `2026-11-22T06:30:00+09:00`: the instant as a clock in that offset shows it. */
function offsetDateTime(instant: number, offsetMinutes: number): string {
  const local = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RSS 2.0 dates are RFC 822: `Sat, 21 Nov 2026 13:05:00 -0500`. */
function rfc822(instant: number, offsetMinutes: number): string {
  const local = new Date(instant + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${DAYS[local.getUTCDay()]}, ${pad(local.getUTCDate())} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}

const SOURCES_YAML = `# Licensed sources of editorial articles. A Markdown or JSON article names one of these ids in
# its \`source\` field; a feed is read only when a source declares it here.
sources:
  - id: harbor-wire
    name: Harbor Wire
    locale: en-US
    rights:
      license: Harbor Wire Syndication Agreement HW-2026-114
      holder: Harbor Wire Media LLC
      reuse: with-attribution
    attribution:
      source: Harbor Wire
      url: https://www.harborwire.example/
      text: "© Harbor Wire Media LLC. Used under license."
    defaults:
      author: Harbor Wire Staff
      category: markets
    feed:
      path: feeds/harbor-wire.xml
      format: rss

  - id: hanbit-economy
    name: 한빛경제
    locale: ko-KR
    rights:
      license: CC BY 4.0
      holder: 한빛경제신문
      reuse: free
    attribution:
      source: 한빛경제
      url: https://hanbit-economy.example/
      text: "출처: 한빛경제 (CC BY 4.0)"
    defaults:
      author: 한빛경제 편집국
      category: economy
    feed:
      path: feeds/hanbit-economy.atom
      format: atom

  - id: sakura-markets
    name: さくらマーケッツ
    locale: ja-JP
    rights:
      license: Sakura Markets Content License v3
      holder: Sakura Markets K.K.
      reuse: with-attribution
    attribution:
      source: さくらマーケッツ
      url: https://sakura-markets.example/
      text: "提供: さくらマーケッツ"
    defaults:
      author: さくらマーケッツ編集部
      category: markets
    feed:
      path: feeds/sakura-markets.json
      format: jsonfeed

  - id: jade-finance
    name: 翡翠财经
    locale: zh-CN
    rights:
      license: Jade Finance Partner Terms 2026
      holder: 翡翠财经传媒有限公司
      reuse: none
    attribution:
      source: 翡翠财经
      url: https://jade-finance.example/
      text: "来源：翡翠财经，经授权使用"
`;

interface MarkdownArticle {
  locale: Locale;
  slug: string;
  hoursAgo: number;
  source: string;
  title: string;
  author: string;
  categories: string[];
  description?: string;
  image?: string;
  body: string;
}

const MARKDOWN_ARTICLES: MarkdownArticle[] = [
  {
    locale: 'en-US',
    slug: 'fed-holds-rates-signals-patience',
    hoursAgo: 3,
    source: 'harbor-wire',
    title: 'Fed holds rates steady and signals patience on further cuts',
    author: 'Dana Whitfield',
    categories: ['policy', 'rates'],
    description: 'Officials kept the target range unchanged and said they want more evidence that services inflation is cooling.',
    image: 'images/fed-statement.jpg',
    body: `The Federal Reserve left its benchmark rate unchanged on Wednesday, saying it wants to see
further progress on inflation before easing policy again.

In the statement and the press conference that followed, officials pointed to three things they
are watching:

- services inflation excluding housing, which has eased only slowly;
- wage growth, now running close to a pace consistent with the 2% target;
- financial conditions, which loosened after the last cut.

"We are in a good position to be patient," the chair told reporters, adding that the committee
would decide "meeting by meeting" rather than follow a preset path.

Futures markets trimmed bets on a cut at the next meeting after the decision. The full statement
is available on the [Federal Reserve website](https://www.federalreserve.gov/newsevents/pressreleases.htm).
`,
  },
  {
    locale: 'en-US',
    slug: 'treasury-curve-steepens-after-auction',
    hoursAgo: 27,
    source: 'harbor-wire',
    title: 'Treasury curve steepens after a soft 30-year auction',
    author: 'Marcus Bell',
    categories: ['markets'],
    body: `Long-dated Treasury yields rose after the Treasury's 30-year bond sale drew weaker demand than
dealers expected, pushing the gap between two- and 30-year yields to its widest in months.

The auction tailed by 1.8 basis points, and indirect bidders, a proxy for foreign demand, took a
smaller share than at the previous sale. Strategists said supply worries were back in focus:

1. coupon auction sizes are expected to stay at record levels;
2. the term premium has risen as fiscal deficits widen;
3. pension funds have slowed their year-end buying.

Shorter maturities held steady, anchored by expectations for policy rates.
`,
  },
  {
    locale: 'en-US',
    slug: 'holiday-retail-sales-beat-forecasts',
    hoursAgo: 4 * 24 + 6,
    source: 'harbor-wire',
    title: 'Holiday retail sales beat forecasts as shoppers start early',
    author: 'Elena Rossi',
    categories: ['economy', 'consumers'],
    image: 'images/retail-sales.jpg',
    body: `US retail sales rose more than economists expected last month, as discounting pulled holiday
purchases forward and spending at restaurants held up.

Control-group sales, which feed into the government's estimate of consumer spending, gained 0.6%.
Online retailers and general merchandise stores led the increase, while sales at furniture stores
and building-material dealers declined.

Economists cautioned that early promotions may borrow from December. "The question is whether
this is extra spending or just earlier spending," one said in a note to clients.
`,
  },
  {
    locale: 'en-US',
    slug: 'chipmakers-raise-capital-spending',
    hoursAgo: 9 * 24 + 2,
    source: 'harbor-wire',
    title: 'Chipmakers raise capital spending plans on AI demand',
    author: 'Priya Raman',
    categories: ['technology'],
    body: `Three of the world's largest semiconductor manufacturers raised their capital spending plans for
next year, citing orders for data-center accelerators and advanced packaging.

The new budgets favour:

- leading-edge logic capacity for AI processors;
- high-bandwidth memory lines;
- packaging plants in the United States, Japan and Taiwan.

Equipment makers' shares rose on the news, though analysts warned that consumer electronics demand
remains subdued.
`,
  },
  {
    locale: 'ko-KR',
    slug: 'bok-holds-base-rate',
    hoursAgo: 6,
    source: 'hanbit-economy',
    title: '한국은행, 기준금리 동결…"가계부채·환율 함께 본다"',
    author: '김서연',
    categories: ['policy'],
    image: 'images/bok-meeting.jpg',
    body: `한국은행 금융통화위원회가 기준금리를 현 수준에서 동결했다. 가계부채 증가세와 원·달러 환율 변동성이
여전히 부담 요인으로 꼽혔다.

총재는 기자간담회에서 다음 세 가지를 주요 점검 사항으로 제시했다.

- 수도권 주택 가격과 가계대출 흐름
- 환율 변동성과 외국인 자금 흐름
- 내수 회복 속도

시장에서는 내년 상반기 중 한 차례 추가 인하 가능성을 열어 둔 것으로 해석했다. 통화정책방향 전문은
[한국은행 누리집](https://www.bok.or.kr/)에서 볼 수 있다.
`,
  },
  {
    locale: 'ko-KR',
    slug: 'kospi-chip-stocks-rally',
    hoursAgo: 3 * 24 + 4,
    source: 'hanbit-economy',
    title: '반도체주 강세에 코스피 2% 가까이 상승',
    author: '박지훈',
    categories: ['markets'],
    body: `코스피가 반도체 대형주의 강세에 힘입어 2% 가까이 올랐다. 외국인 투자자는 유가증권시장에서 사흘 연속
순매수를 이어 갔다.

고대역폭메모리(HBM) 공급 계약 소식이 전해지면서 메모리 업종 전반으로 매수세가 확산했다. 반면 2차전지
관련주는 원자재 가격 하락 우려로 약세를 보였다.
`,
  },
  {
    locale: 'ko-KR',
    slug: 'exports-rise-for-third-month',
    hoursAgo: 12 * 24 + 3,
    source: 'hanbit-economy',
    title: '수출 3개월 연속 증가…반도체·선박이 견인',
    author: '이하늘',
    categories: ['economy', 'trade'],
    body: `산업통상자원부에 따르면 지난달 수출이 작년 같은 달보다 늘어 3개월 연속 증가세를 이어 갔다.

품목별로는 반도체와 선박이 증가를 이끌었고, 석유화학과 철강은 단가 하락으로 감소했다. 무역수지는 흑자를
유지했다.

정부는 주요국 관세 정책의 불확실성이 남아 있다며 수출 기업 지원책을 계속 점검하겠다고 밝혔다.
`,
  },
  {
    locale: 'ja-JP',
    slug: 'boj-keeps-policy-unchanged',
    hoursAgo: 20,
    source: 'sakura-markets',
    title: '日銀、金融政策を据え置き　賃上げの広がりを確認へ',
    author: '佐藤美咲',
    categories: ['policy'],
    body: `日本銀行は金融政策決定会合で、短期金利の誘導目標を据え置くことを決めた。植田総裁は会見で、来年の
春季労使交渉に向けた賃上げの動きを見極めたいと述べた。

声明文で示された主な判断は次の通り。

- 消費者物価（生鮮食品を除く）の上昇率は2%程度で推移
- 企業の価格転嫁は引き続き進展
- 海外経済の不確実性は高い

市場では追加利上げの時期をめぐる見方が分かれている。公表文は[日本銀行のウェブサイト](https://www.boj.or.jp/)で確認できる。
`,
  },
  {
    locale: 'ja-JP',
    slug: 'yen-slides-on-rate-gap',
    hoursAgo: 6 * 24 + 5,
    source: 'sakura-markets',
    title: '円相場、日米金利差を意識して下落',
    author: '田中健',
    categories: ['markets', 'forex'],
    body: `東京外国為替市場で円相場は対ドルで下落した。米長期金利の上昇を受けて、日米金利差の拡大を意識した
円売り・ドル買いが優勢だった。

市場関係者は、当局による為替介入への警戒感から下値は限られるとみている。
`,
  },
  {
    locale: 'ja-JP',
    slug: 'japan-firms-boost-ai-investment',
    hoursAgo: 15 * 24 + 1,
    source: 'sakura-markets',
    title: '国内企業のAI投資、計画比で上振れ',
    author: '山本直樹',
    categories: ['technology'],
    image: 'images/ai-investment.jpg',
    body: `民間調査によると、国内大手企業の今年度のAI関連投資は期初計画を上回る見通しとなった。

投資先としては、生成AIを使った業務効率化、データセンターの増設、人材育成が上位を占めた。一方で、
投資効果の測定が難しいとの回答も多かった。
`,
  },
  {
    locale: 'zh-CN',
    slug: 'pboc-keeps-lpr-unchanged',
    hoursAgo: 2 * 24 + 7,
    source: 'jade-finance',
    title: '贷款市场报价利率连续维持不变',
    author: '王磊',
    categories: ['policy'],
    body: `本月一年期和五年期以上贷款市场报价利率（LPR）均维持不变，符合市场预期。

分析人士认为，主要原因包括：

- 银行净息差仍处于低位；
- 此前降准释放的流动性仍在传导；
- 稳汇率的考虑。

市场预计年底前仍有结构性工具加码的可能。
`,
  },
  {
    locale: 'zh-CN',
    slug: 'ev-exports-hit-record',
    hoursAgo: 25 * 24 + 4,
    source: 'jade-finance',
    title: '新能源汽车出口创单月新高',
    author: '陈静',
    categories: ['technology', 'trade'],
    body: `据行业协会数据，上月新能源汽车出口量创下单月新高，东南亚和中东市场增长较快。

车企加快在海外建设组装工厂，以应对部分市场的关税壁垒。业内人士表示，价格竞争和海外认证将是明年的主要挑战。
`,
  },
];

function markdownFile(article: MarkdownArticle, instant: number): string {
  const lines = [
    '---',
    `title: ${JSON.stringify(article.title)}`,
    `date: ${offsetDateTime(instant, OFFSET_MINUTES[article.locale])}`,
    `author: ${JSON.stringify(article.author)}`,
    `categories: [${article.categories.join(', ')}]`,
    `locale: ${article.locale}`,
    `source: ${article.source}`,
  ];
  if (article.description !== undefined) lines.push(`description: ${JSON.stringify(article.description)}`);
  if (article.image !== undefined) lines.push(`image: ${article.image}`);
  lines.push('---', '', article.body);
  return lines.join('\n');
}

/** A provider's closing-price table: not editorial content, so ingest excludes it. */
function marketSnapshotFile(instant: number): string {
  return `---
title: "Market close snapshot"
type: market-snapshot
date: ${offsetDateTime(instant, OFFSET_MINUTES['en-US'])}
source: harbor-wire
category: markets
---

| Index | Close | Change |
|:------|------:|-------:|
| S&P 500 | 5,912.40 | +0.3% |
| Nasdaq Composite | 19,204.10 | +0.6% |
| Dow Jones Industrial Average | 43,870.35 | -0.1% |
`;
}

function jsonArticles(base: number): string {
  const articles = [
    {
      title: 'Housing starts fall as builders pull back on apartments',
      slug: 'housing-starts-fall-multifamily',
      date: offsetDateTime(base - (8 * 24 + 3) * HOUR_MS, OFFSET_MINUTES['en-US']),
      author: 'Marcus Bell',
      categories: ['economy', 'housing'],
      source: 'harbor-wire',
      body: [
        'Construction began on fewer new homes last month, as a sharp drop in apartment projects offset a small gain in single-family starts.',
        '',
        'Building permits, a guide to future construction, were little changed. Builders cited high financing costs and a large pipeline of units still under construction.',
      ].join('\n'),
    },
  ];
  return `${JSON.stringify(articles, null, 2)}\n`;
}

function rssFeed(base: number): string {
  const offset = OFFSET_MINUTES['en-US'];
  const items = [
    {
      title: 'Oil slips as OPEC+ weighs delaying output increase',
      slug: 'oil-slips-opec-output-plan',
      hoursAgo: 10,
      author: 'Priya Raman',
      category: 'Commodities',
      html: '<p>Brent crude fell 1.4% as producers weighed whether to delay a planned output increase into the second quarter.</p>\n<p>Traders also watched weekly US inventory data <a href="https://www.eia.gov/petroleum/supply/weekly/">published by the EIA</a>.</p>',
    },
    {
      title: 'Dollar steadies ahead of the payrolls report',
      slug: 'dollar-steadies-ahead-of-payrolls',
      hoursAgo: 2 * 24 + 9,
      author: 'Tom Okafor',
      category: 'Currencies',
      html: '<p>The dollar index held in a narrow range as traders awaited the monthly jobs report.</p>\n<ul><li>The euro was flat.</li><li>The yen weakened slightly.</li></ul>',
    },
  ];
  const itemXml = items
    .map((item) => {
      const link = `https://www.harborwire.example/markets/${item.slug}`;
      return `    <item>
      <title>${escapeXml(item.title)}</title>
      <link>${link}</link>
      <guid isPermaLink="true">${link}</guid>
      <pubDate>${rfc822(base - item.hoursAgo * HOUR_MS, offset)}</pubDate>
      <dc:creator>${escapeXml(item.author)}</dc:creator>
      <category>${escapeXml(item.category)}</category>
      <content:encoded><![CDATA[${item.html}]]></content:encoded>
    </item>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Harbor Wire — Markets</title>
    <link>https://www.harborwire.example/markets</link>
    <description>Markets coverage from Harbor Wire</description>
    <language>en-us</language>
    <lastBuildDate>${rfc822(base - HOUR_MS, 0).replace('+0000', 'GMT')}</lastBuildDate>
${itemXml}
  </channel>
</rss>
`;
}

function atomFeed(base: number): string {
  const offset = OFFSET_MINUTES['ko-KR'];
  const entries = [
    {
      id: 'exports-first-20-days',
      title: '이달 1~20일 수출 8% 증가',
      hoursAgo: 14,
      author: '박지훈',
      category: 'trade',
      summary: '반도체 수출 호조로 이달 1~20일 수출이 작년 같은 기간보다 8% 늘었다.',
      html: '<p>관세청에 따르면 이달 1~20일 수출은 반도체와 자동차를 중심으로 늘었다.</p><p>수입은 에너지 가격 하락으로 줄었다.</p>',
    },
    {
      id: 'household-loans-slow',
      title: '은행권 가계대출 증가 폭 둔화',
      hoursAgo: 4 * 24 + 2,
      author: '최유진',
      category: 'economy',
      summary: '대출 규제 강화 이후 은행권 가계대출 증가 폭이 두 달 연속 줄었다.',
      html: '<p>지난달 은행권 가계대출은 주택담보대출을 중심으로 늘었지만 증가 폭은 전달보다 줄었다.</p><p>금융당국은 연말까지 <strong>관리 기조</strong>를 유지하겠다고 밝혔다.</p>',
    },
  ];
  const entryXml = entries
    .map((entry) => {
      const published = offsetDateTime(base - entry.hoursAgo * HOUR_MS, offset);
      return `  <entry>
    <title>${escapeXml(entry.title)}</title>
    <id>tag:hanbit-economy.example,2026:${entry.id}</id>
    <link rel="alternate" type="text/html" href="https://hanbit-economy.example/news/${entry.id}"/>
    <published>${published}</published>
    <updated>${published}</updated>
    <author><name>${escapeXml(entry.author)}</name></author>
    <category term="${entry.category}"/>
    <summary>${escapeXml(entry.summary)}</summary>
    <content type="html">${escapeXml(entry.html)}</content>
  </entry>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="ko-KR">
  <title>한빛경제</title>
  <id>tag:hanbit-economy.example,2026:feed</id>
  <updated>${offsetDateTime(base - 14 * HOUR_MS, offset)}</updated>
  <link rel="self" href="https://hanbit-economy.example/feed.atom"/>
  <author><name>한빛경제 편집국</name></author>
${entryXml}
</feed>
`;
}

function jsonFeed(base: number): string {
  const offset = OFFSET_MINUTES['ja-JP'];
  const item = (slug: string, hoursAgo: number, title: string, author: string, tag: string, summary: string, html: string) => ({
    id: `https://sakura-markets.example/articles/${slug}`,
    url: `https://sakura-markets.example/articles/${slug}`,
    title,
    content_html: html,
    summary,
    date_published: offsetDateTime(base - hoursAgo * HOUR_MS, offset),
    authors: [{ name: author }],
    tags: [tag],
    language: 'ja-JP',
  });
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: 'さくらマーケッツ',
    home_page_url: 'https://sakura-markets.example/',
    feed_url: 'https://sakura-markets.example/feed.json',
    language: 'ja-JP',
    items: [
      item(
        'nikkei-rebounds-on-exporters',
        8,
        '日経平均が反発、輸出関連株に買い',
        '中村涼',
        'markets',
        '円安を背景に自動車や電子部品など輸出関連株が買われた。',
        '<p>東京株式市場で日経平均株価は反発した。円安を背景に、自動車や電子部品など輸出関連株に買いが入った。</p><p>一方、内需関連株は利益確定の売りに押された。</p>',
      ),
      item(
        'jgb-10y-auction-demand',
        3 * 24 + 6,
        '10年国債入札、応札倍率が前回を上回る',
        '佐藤美咲',
        'markets',
        '財務省の10年利付国債入札は投資家の需要が底堅かった。',
        '<p>財務省が実施した10年利付国債の入札で、応札倍率は前回を上回った。</p><p>市場では、利回り上昇で<strong>生命保険会社</strong>の買いが入ったとの見方が出ている。</p>',
      ),
    ],
  };
  return `${JSON.stringify(feed, null, 2)}\n`;
}

// Catalogue of the example shop. Prices are in cents so totals never suffer from floating point.
// Ids are URL slugs: /product.html?id=trail-mug
"use strict";

window.SHOP_PRODUCTS = [
  {
    id: "trail-mug",
    name: "Trail Mug",
    priceCents: 1250,
    image: "img/trail-mug.svg",
    imageAlt: "Blue enamel mug with a white rim",
    description:
      "Enamel-coated steel mug that shrugs off campfires and dishwashers alike. Holds 350 ml of coffee, tea or soup.",
    reviews: [
      { author: "Priya", rating: 5, text: "Survived a week of camp cooking and still looks new." },
      { author: "Tom", rating: 4, text: "Great mug, the rim gets hot with fresh coffee." },
    ],
  },
  {
    id: "summit-backpack",
    name: "Summit Backpack",
    priceCents: 8900,
    image: "img/summit-backpack.svg",
    imageAlt: "Orange daypack with a front pocket and shoulder straps",
    description:
      "A 32-litre daypack with a ventilated back panel, hip belt pockets and a rain cover tucked into the base.",
    reviews: [
      { author: "Maya", rating: 5, text: "Carries everything for a long day and stays comfortable." },
      { author: "Jonas", rating: 4, text: "Lots of pockets. I wish the hip belt were a bit wider." },
      { author: "Lea", rating: 5, text: "The built-in rain cover saved my lunch twice already." },
    ],
  },
  {
    id: "compass",
    name: "Compass",
    priceCents: 2499,
    image: "img/compass.svg",
    imageAlt: "Baseplate compass with a red and white needle",
    description:
      "Liquid-filled baseplate compass with a declination adjustment, a magnifier and a glow-in-the-dark bezel.",
    reviews: [
      { author: "Sam", rating: 5, text: "Steady needle, easy to read at night." },
      { author: "Ines", rating: 4, text: "Does the job. The lanyard could be longer." },
    ],
  },
  {
    id: "headlamp",
    name: "Headlamp",
    priceCents: 3495,
    image: "img/headlamp.svg",
    imageAlt: "Headlamp on a black strap shining a yellow beam",
    description:
      "Rechargeable 400-lumen headlamp with a red night mode and a lock so it never turns on inside your pack.",
    reviews: [
      { author: "Kofi", rating: 5, text: "Bright, light and the battery lasts for days." },
      { author: "Ana", rating: 3, text: "Good light, but the strap loosens over time." },
      { author: "Olle", rating: 4, text: "The red mode is perfect for reading in the tent." },
    ],
  },
  {
    id: "water-bottle",
    name: "Water Bottle",
    priceCents: 1800,
    image: "img/water-bottle.svg",
    imageAlt: "Teal insulated bottle with a black cap",
    description: "Insulated 750 ml stainless steel bottle: cold for 24 hours, hot for 12. Leak-proof lid.",
    reviews: [
      { author: "Noor", rating: 5, text: "Ice was still there the next morning." },
      { author: "Ben", rating: 4, text: "Solid bottle, a little heavy when full." },
    ],
  },
  {
    id: "rain-jacket",
    name: "Rain Jacket",
    priceCents: 12900,
    image: "img/rain-jacket.svg",
    imageAlt: "Yellow rain jacket with a hood and a front zip",
    description:
      "Three-layer waterproof, breathable shell with pit zips and a helmet-compatible hood. Packs into its own pocket.",
    reviews: [
      { author: "Elena", rating: 5, text: "Bone dry after six hours of Scottish drizzle." },
      { author: "Marc", rating: 4, text: "Breathes well on climbs. Sizing runs slightly small." },
    ],
  },
  {
    id: "hiking-socks",
    name: "Hiking Socks",
    priceCents: 1475,
    image: "img/hiking-socks.svg",
    imageAlt: "Pair of grey wool socks with red heels and toes",
    description: "Merino wool blend socks with cushioned heels and toes. Two pairs per pack.",
    reviews: [
      { author: "Yuki", rating: 5, text: "No blisters on a 20 km day. Buying more." },
      { author: "Chris", rating: 5, text: "Warm, soft and they do not smell after three days." },
      { author: "Dana", rating: 4, text: "Comfortable, but they take a while to dry." },
    ],
  },
  {
    id: "map-case",
    name: "Map Case",
    priceCents: 999,
    image: "img/map-case.svg",
    imageAlt: "Clear map case holding a folded trail map",
    description: "Clear waterproof map case with a roll-top closure and a neck cord. Fits a folded A4 map.",
    reviews: [
      { author: "Hugo", rating: 4, text: "Keeps the map dry and readable in the rain." },
      { author: "Mila", rating: 4, text: "Simple and sturdy. The cord is a bit short." },
    ],
  },
];
